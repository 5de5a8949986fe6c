// uLoop's allowlist preset measured with the real claude (the pinned CLI) through the real
// codiva against the mock model: a panel session (PanelSession.Create with uLoop usable in the
// project) whose Bash calls run `uloop …` with a fake `uloop` first on the agent's PATH that
// records its arguments. "Ran" is judged by the fake's record and "asked" by the permission
// requests that reach codiva — never by tool results (a denied call has one too). Each request
// is denied by the test, with the command in its reason, so nothing asked ever runs.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Client;
using Codiva.Json;
using Codiva.Ops;
using Codiva.Protocol;
using Codiva.Rpc;
using Codiva.Unity;
using NUnit.Framework;
using static Codiva.Tests.Script;
using static Codiva.Tests.Waits;

namespace Codiva.Tests
{
    [TestFixture]
    public class UloopEndToEndTests
    {
        sealed class Disk : IFileReader, IFileProbe
        {
            public string ReadText(string path) => File.Exists(path) ? File.ReadAllText(path) : null;
            public bool IsFile(string path) => File.Exists(path);
        }

        /// What one session did: the commands it asked about (in order), the fake's record (one
        /// line of arguments per run), the session's create params.
        sealed class Measured
        {
            public List<string> Asked = new List<string>();
            public List<string> Ran = new List<string>();
            public CreateParams Create;
        }

        /// Runs a panel session in a Unity project with uLoop (the package in the manifest, the
        /// fake CLI on PATH) whose model runs `commands` in order, one Bash call each; each
        /// permission request is denied with the command in its reason. `rules`, when given,
        /// replaces the session's allow rules (to measure other rules than the preset's).
        static Measured Measure(bool preset, IReadOnlyList<string> rules, params string[] commands)
        {
            Func<string, object> script = repo =>
            {
                // The first call follows the prompt; each next one follows the previous call's
                // result, which names the command whether it ran (the fake prints its arguments:
                // `ran: uloop <command>`, which a step piped to grep keeps) or was denied (the
                // reason names it). A step's key is the command up to ` | `, without its quotes
                // (the shell takes them off before the fake prints its arguments).
                Func<int, string> key = i => commands[i].Split(new[] { " | " }, StringSplitOptions.None)[0].Replace("'", "");
                var steps = new List<object> { When("last_user_contains", "ULOOP measure", ToolUse("Bash", Obj("command", commands[0], "description", "uloop step"))) };
                for (var i = 1; i < commands.Length; i++)
                    steps.Add(When("last_user_contains", key(i - 1), ToolUse("Bash", Obj("command", commands[i], "description", "uloop step"))));
                steps.Add(When("last_user_contains", key(commands.Length - 1), Text("Measured.")));
                return Rules(steps.ToArray());
            };
            var measured = new Measured();
            using (var world = new World(script))
            using (var unity = new ThreadDispatcher("unity-main"))
            using (var main = new ThreadDispatcher())
            {
                Directory.CreateDirectory(Path.Combine(world.Repo, "Packages"));
                File.WriteAllText(Path.Combine(world.Repo, "Packages", "manifest.json"),
                    "{\n  \"dependencies\": {\n    \"" + Uloop.PackageName + "\": \"" + Uloop.GitUrl + "\",\n    \"com.unity.ugui\": \"1.0.0\"\n  }\n}\n");
                // The fake CLI, first on the agent's PATH; its record is outside the repository.
                var bin = Path.Combine(world.Home, "fake-bin");
                Directory.CreateDirectory(bin);
                var record = Path.Combine(world.Home, "uloop-record.txt");
                var fake = Path.Combine(bin, "uloop");
                File.WriteAllText(fake, "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + record + "'\necho \"ran: uloop $*\"\n");
                Run.Program("chmod", "+x " + Run.Quote(fake), world.Repo);

                var program = world.Program();
                program.Environment["PATH"] = bin + ":" + program.Environment["PATH"];
                var presence = Uloop.Detect(new Disk(), new Disk(), world.Repo, program.Environment["PATH"]);
                Assert.IsTrue(presence.Usable, "the package in the manifest and the fake on PATH");
                Assert.AreEqual(fake, presence.Cli);

                using (var server = new McpServer(new ToolRegistry(), new ToolRunner(unity)))
                {
                    server.Start();
                    var client = new CodivaClient(new DaemonSocketTransportFactory(program), main);
                    try
                    {
                        client.Start();
                        Until(main, () => client.State == ConnectionState.Connected, "the connection");
                        measured.Create = PanelSession.Create("ULOOP measure the preset", world.Repo, server, new PanelSessionInputs { Uloop = presence, UloopPreset = preset });
                        if (rules != null) measured.Create.AllowedTools = rules.ToList();
                        var id = client.CreateSession(measured.Create).Result.Session.Id;
                        client.Watch(id);
                        var answered = new HashSet<string>();
                        while (true)
                        {
                            Until(main, () => client.Store[id]?.Status == "completed" || client.Store[id]?.Status == "failed"
                                || client.Store[id]?.Prompts.Any(p => p.Kind == "permission" && !answered.Contains(p.RequestId)) == true, "a permission or the end of the turn");
                            var open = main.Invoke(() => client.Store[id].Prompts.FirstOrDefault(p => p.Kind == "permission" && !answered.Contains(p.RequestId)));
                            if (open == null) break;
                            answered.Add(open.RequestId);
                            Assert.AreEqual("Bash", open.Tool);
                            var command = JsonRead.Str(open.Input, "command");
                            measured.Asked.Add(command);
                            client.RespondPermission(id, open.RequestId, open.Options.First(o => o.Kind == Known.PermissionOptionKind.Deny).Id, "denied: " + command.Replace("'", "")).Wait();
                        }
                        Assert.AreEqual("completed", main.Invoke(() => client.Store[id].Status),
                            "asked: " + string.Join(" | ", measured.Asked) + "\nmock: " + world.Mock.Log);
                        Until(main, () => client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == "Measured."), "the last answer");
                        Assert.AreEqual(commands.Length, main.Invoke(() => client.Store[id].Log.Count(e => e.Kind == "tool" && e.Name == "Bash")));
                        // The steering lines reached the model's system prompt.
                        var told = world.Mock.WaitForRequest(b => b.Contains("uLoop (Unity CLI Loop) is installed in this Unity project"));
                        StringAssert.Contains(preset ? "These four run without asking" : "Each uloop command asks the user first.", told);
                    }
                    finally
                    {
                        client.Dispose();
                    }
                }
                if (File.Exists(record))
                    measured.Ran = File.ReadAllLines(record).Where(l => l.Length > 0).ToList();
                foreach (var touched in new[] { "ulp6.txt", "ulp7.txt" })
                    Assert.IsFalse(File.Exists(Path.Combine(world.Repo, touched)), touched + " was created: a chained command ran");
                Assert.IsNull(unity.Failure);
            }
            return measured;
        }

        [Test]
        public void The_preset_lets_its_four_commands_run_and_asks_for_everything_else()
        {
            var measured = Measure(true, null,
                "uloop compile",
                "uloop get-logs --log-type Error --max-count 10",
                "uloop run-tests --filter-type exact --filter-value Ulp.Tests",
                "uloop list",
                "uloop compile --project-path ../other",
                "uloop get-logs --max-count 5 | grep max-count",
                "uloop execute-dynamic-code --code 'return 4;'",
                "uloop compile && uloop execute-dynamic-code --code 'return 5;'",
                "uloop compile; touch ulp6.txt",
                "uloop compile $(touch ulp7.txt)",
                "uloop list | sh",
                "uloop update",
                "uloop compile-all");
            // The session carried exactly the preset's rules, and the gate's refusals stayed.
            CollectionAssert.AreEqual(Uloop.PresetRules, measured.Create.AllowedTools);
            CollectionAssert.AreEqual(ScriptGate.DisallowedTools, measured.Create.DisallowedTools);
            StringAssert.StartsWith(ScriptGate.Instructions(PanelSession.OpsServerName), measured.Create.AppendSystemPrompt);
            StringAssert.EndsWith(Uloop.Steering(true), measured.Create.AppendSystemPrompt);

            Assert.AreEqual(new[]
            {
                "compile",
                "get-logs --log-type Error --max-count 10",
                "run-tests --filter-type exact --filter-value Ulp.Tests",
                "list",
                // A prefix rule takes any arguments: the global --project-path too.
                "compile --project-path ../other",
                // Piped into a command Claude Code counts as read-only, it runs without asking.
                "get-logs --max-count 5",
            }, measured.Ran.ToArray(), "the fake's record: what ran");
            Assert.AreEqual(new[]
            {
                "uloop execute-dynamic-code --code 'return 4;'",
                "uloop compile && uloop execute-dynamic-code --code 'return 5;'",
                "uloop compile; touch ulp6.txt",
                "uloop compile $(touch ulp7.txt)",
                "uloop list | sh",
                "uloop update",
                // `:*` matches at a word's end: another command that starts with the name asks.
                "uloop compile-all",
            }, measured.Asked.ToArray(), "the permission requests that reached codiva");
        }

        /// Off (the default), nothing of uLoop is allowed in advance: even `uloop compile` asks.
        [Test]
        public void With_the_preset_off_uloop_compile_asks()
        {
            var measured = Measure(false, null, "uloop compile");
            Assert.IsNull(measured.Create.AllowedTools);
            StringAssert.EndsWith(Uloop.Steering(false), measured.Create.AppendSystemPrompt);
            Assert.AreEqual(new[] { "uloop compile" }, measured.Asked.ToArray());
            Assert.AreEqual(0, measured.Ran.Count, string.Join(" | ", measured.Ran));
        }

        /// Why the preset names each command: a broad rule lets `uloop execute-dynamic-code`
        /// (C# run in the Editor) through without asking, in both of Claude Code's forms.
        [TestCase("Bash(uloop:*)")]
        [TestCase("Bash(uloop *)")]
        public void A_broad_rule_lets_execute_dynamic_code_run_without_asking(string rule)
        {
            var measured = Measure(true, new[] { rule }, "uloop execute-dynamic-code --code 'return 9;'");
            Assert.AreEqual(0, measured.Asked.Count, string.Join(" | ", measured.Asked));
            Assert.AreEqual(new[] { "execute-dynamic-code --code return 9;" }, measured.Ran.ToArray());
        }
    }
}
