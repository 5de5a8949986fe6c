// The script validation gate (Ops/ScriptGate.cs): what is staged and where it goes, a commit that
// compiles (Mono's `mcs`, a real compile of the project's scripts with the staged ones) and moves,
// one that does not and moves nothing; and end to end with the real codiva and claude against the
// mock model: the agent's direct write of a script into `Assets/` refused by the session's tool
// rules, a staged script that compiles committed, one that does not rejected with the compiler's
// error.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Codiva.Client;
using Codiva.Json;
using Codiva.Ops;
using Codiva.Protocol;
using Codiva.Rpc;
using NUnit.Framework;
using static Codiva.Tests.Script;
using static Codiva.Tests.Waits;

namespace Codiva.Tests
{
    /// The tests' compiler: Mono's `mcs` over the project's `Assets/**/*.cs` with the staged scripts
    /// in place of those they replace, into a throwaway library. The Editor's is Unity's compilation
    /// API (`Editor/UnityScriptCompiler.cs`).
    public sealed class McsCompiler : IScriptCompiler
    {
        static readonly Regex Line = new Regex(@"^(?<file>.+?)\((?<line>\d+),(?<column>\d+)\): (?<severity>error|warning) (?<text>.*)$");
        public int Calls;

        public IList<CompileMessage> Compile(string projectDir, IList<StagedScript> scripts)
        {
            Calls++;
            var assets = Path.Combine(projectDir, "Assets");
            var project = Directory.Exists(assets) ? Directory.GetFiles(assets, "*.cs", SearchOption.AllDirectories) : new string[0];
            var sources = ScriptGate.Sources(projectDir, project, scripts);
            using (var output = new TempDir("codiva-mcs-"))
            {
                var args = "-target:library -nologo -out:" + Run.Quote(Path.Combine(output.Path, "check.dll")) + " "
                    + string.Join(" ", sources.Select(Run.Quote));
                // In a process group of its own (setsid execs mcs in place: its pid is the group's),
                // so a compile that outlives its time is killed whole (mcs is a script running mono).
                var info = new ProcessStartInfo("setsid", "mcs " + args) { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
                using (var process = Process.Start(info))
                {
                    var error = process.StandardError.ReadToEndAsync();
                    var text = process.StandardOutput.ReadToEndAsync();
                    if (!process.WaitForExit(60000))
                    {
                        Run.Program("kill", "-KILL -- -" + process.Id, "/");
                        process.WaitForExit();
                        return new List<CompileMessage> { new CompileMessage { IsError = true, Text = "the compiler did not finish within 60 s" } };
                    }
                    var messages = new List<CompileMessage>();
                    foreach (var line in (text.Result + "\n" + error.Result).Split('\n'))
                    {
                        var match = Line.Match(line.TrimEnd('\r'));
                        if (!match.Success) continue;
                        messages.Add(new CompileMessage
                        {
                            File = match.Groups["file"].Value,
                            Line = int.Parse(match.Groups["line"].Value),
                            Column = int.Parse(match.Groups["column"].Value),
                            IsError = match.Groups["severity"].Value == "error",
                            Text = match.Groups["text"].Value,
                        });
                    }
                    if (process.ExitCode != 0 && !messages.Any(m => m.IsError))
                        messages.Add(new CompileMessage { IsError = true, Text = "mcs exited with " + process.ExitCode + ": " + error.Result + text.Result });
                    return messages;
                }
            }
        }
    }

    [TestFixture]
    public class ScriptGateTests
    {
        const string Greeter = "namespace Game { public static class Greeter { public static string Hello() => \"hello\"; } }\n";
        const string Good = "namespace Game { public class Door { public string Say() => Greeter.Hello() + \" door\"; } }\n";
        const string Bad = "namespace Game { public class Broken { public int Count() => Greeter.Missing(); } }\n";

        TempDir project;

        [SetUp]
        public void SetUp()
        {
            project = new TempDir("codiva-gate-");
            Write("Assets/Scripts/Greeter.cs", Greeter);
        }

        [TearDown]
        public void TearDown() => project.Dispose();

        string Full(string relative) => Path.Combine(project.Path, relative);

        void Write(string relative, string text)
        {
            Directory.CreateDirectory(Path.GetDirectoryName(Full(relative)));
            File.WriteAllText(Full(relative), text);
        }

        static string Staged(string target) => ScriptGate.StagingFolder + "/" + target;

        [Test]
        public void Scripts_and_assembly_definitions_under_Assets_are_gated_and_nothing_else()
        {
            Assert.IsTrue(ScriptGate.IsGated("Assets/Foo.cs"));
            Assert.IsTrue(ScriptGate.IsGated("Assets/A/B/C.cs"));
            Assert.IsTrue(ScriptGate.IsGated("Assets/Game.asmdef"));
            Assert.IsTrue(ScriptGate.IsGated("Assets\\Win\\Path.cs"));
            Assert.IsFalse(ScriptGate.IsGated("Assets/readme.txt"));
            Assert.IsFalse(ScriptGate.IsGated("Packages/com.x/Foo.cs"));
            Assert.IsFalse(ScriptGate.IsGated("Foo.cs"));
            Assert.IsFalse(ScriptGate.IsGated("Assets/Foo.csx"));
            CollectionAssert.AreEqual(new[] { "Edit(Assets/**/*.cs)", "Edit(Assets/**/*.asmdef)" }, ScriptGate.DisallowedTools);
            StringAssert.Contains("CodivaStaging~/Assets/Scripts/Foo.cs", ScriptGate.Instructions("unity-ops"));
            StringAssert.Contains("mcp__unity-ops__scripts_commit", ScriptGate.Instructions("unity-ops"));
        }

        [Test]
        public void The_staging_folder_mirrors_the_project_and_anything_but_a_script_under_Assets_is_a_problem()
        {
            Write(Staged("Assets/Scripts/Door.cs"), Good);
            Write(Staged("Assets/Game.asmdef"), "{\"name\":\"Game\"}");
            var scan = ScriptGate.Scan(project.Path);
            CollectionAssert.IsEmpty(scan.Problems);
            CollectionAssert.AreEqual(new[] { "Assets/Game.asmdef", "Assets/Scripts/Door.cs" }, scan.Scripts.Select(s => s.Target));
            Assert.AreEqual(Full("Assets/Scripts/Door.cs"), scan.Scripts[1].TargetPath);
            Assert.AreEqual(Full(Staged("Assets/Scripts/Door.cs")), scan.Scripts[1].StagedPath);

            Write(Staged("Assets/notes.txt"), "x");
            Write(Staged("Other/Door.cs"), Good);
            var outside = Path.Combine(project.Path, "elsewhere");
            Directory.CreateDirectory(outside);
            File.WriteAllText(Path.Combine(outside, "Evil.cs"), Good);
            Symlink(Path.Combine(outside, "Evil.cs"), Full(Staged("Assets/Evil.cs")));
            Symlink(outside, Full(Staged("Assets/Linked")));
            scan = ScriptGate.Scan(project.Path);
            CollectionAssert.AreEquivalent(new[]
            {
                "Assets/notes.txt: not a script under Assets/ (only Assets/**/*.cs and *.asmdef are committed)",
                "Other/Door.cs: not a script under Assets/ (only Assets/**/*.cs and *.asmdef are committed)",
                "Assets/Evil.cs: a link (not followed)",
                "Assets/Linked: a link (not followed)",
            }, scan.Problems);
        }

        static void Symlink(string target, string link) => Run.Program("ln", "-s " + Run.Quote(target) + " " + Run.Quote(link), "/");

        [Test]
        public void A_staged_script_that_compiles_with_the_project_is_moved_into_Assets()
        {
            Write(Staged("Assets/Scripts/Door.cs"), Good);
            var compiler = new McsCompiler();
            var tool = new ScriptCommitTool(project.Path, compiler);
            IList<string> committed = null;
            tool.Committed += list => committed = list;
            var result = tool.Call(new Dictionary<string, object>());
            Assert.IsFalse(result.IsError, Text(result));
            Assert.AreEqual("compiled cleanly; moved into Assets/:\nAssets/Scripts/Door.cs (new)\nUnity imports them when the turn ends.", Text(result));
            Assert.AreEqual(Good, File.ReadAllText(Full("Assets/Scripts/Door.cs")));
            Assert.IsFalse(Directory.Exists(Full(ScriptGate.StagingFolder)), "the emptied staging folder goes");
            CollectionAssert.AreEqual(new[] { "Assets/Scripts/Door.cs (new)" }, committed);
            Assert.AreEqual(1, compiler.Calls);
        }

        [Test]
        public void A_staged_script_replaces_its_target_in_the_compile_and_on_disk()
        {
            // The staged Greeter drops Hello: the project's Door (which calls it) no longer compiles.
            Write("Assets/Scripts/Door.cs", Good);
            Write(Staged("Assets/Scripts/Greeter.cs"), "namespace Game { public static class Greeter { public static string Hi() => \"hi\"; } }\n");
            var result = new ScriptCommitTool(project.Path, new McsCompiler()).Call(new Dictionary<string, object>());
            Assert.IsTrue(result.IsError);
            StringAssert.Contains("Assets/Scripts/Door.cs(1,", Text(result));
            StringAssert.Contains("error CS0117", Text(result));
            Assert.AreEqual(Greeter, File.ReadAllText(Full("Assets/Scripts/Greeter.cs")), "nothing moved");

            // With both staged, it compiles, and both are replaced.
            Write(Staged("Assets/Scripts/Door.cs"), "namespace Game { public class Door { public string Say() => Greeter.Hi(); } }\n");
            result = new ScriptCommitTool(project.Path, new McsCompiler()).Call(new Dictionary<string, object>());
            Assert.IsFalse(result.IsError, Text(result));
            StringAssert.Contains("Assets/Scripts/Door.cs (replaced)\nAssets/Scripts/Greeter.cs (replaced)\n", Text(result));
            StringAssert.Contains("Greeter.Hi()", File.ReadAllText(Full("Assets/Scripts/Door.cs")));
        }

        [Test]
        public void A_staged_script_that_does_not_compile_is_refused_with_the_compilers_error_and_nothing_moves()
        {
            Write(Staged("Assets/Scripts/Door.cs"), Good);
            Write(Staged("Assets/Scripts/Broken.cs"), Bad);
            var result = new ScriptCommitTool(project.Path, new McsCompiler()).Call(new Dictionary<string, object>());
            Assert.IsTrue(result.IsError);
            var text = Text(result);
            StringAssert.StartsWith("compile failed (1 error); nothing was moved into Assets/.", text);
            // The staged file is named by its target, with mcs's own line, column, code and words.
            StringAssert.Contains("Assets/Scripts/Broken.cs(1,", text);
            StringAssert.Contains("error CS0117: `Game.Greeter' does not contain a definition for `Missing'", text);
            Assert.IsFalse(text.Contains(ScriptGate.StagingFolder + "/Assets/Scripts/Broken.cs("), text);
            Assert.IsFalse(File.Exists(Full("Assets/Scripts/Door.cs")));
            Assert.IsFalse(File.Exists(Full("Assets/Scripts/Broken.cs")));
            Assert.IsTrue(File.Exists(Full(Staged("Assets/Scripts/Door.cs"))), "the staged files stay for the fix");
        }

        [Test]
        public void An_assembly_definition_without_a_name_and_nothing_staged_are_refused_before_compiling()
        {
            var compiler = new McsCompiler();
            var tool = new ScriptCommitTool(project.Path, compiler);
            var result = tool.Call(new Dictionary<string, object>());
            Assert.IsTrue(result.IsError);
            StringAssert.StartsWith("nothing is staged", Text(result));

            Write(Staged("Assets/Game.asmdef"), "{\"references\":[]}");
            result = tool.Call(new Dictionary<string, object>());
            Assert.IsTrue(result.IsError);
            StringAssert.Contains("Assets/Game.asmdef: error an assembly definition needs a \"name\"", Text(result));
            Write(Staged("Assets/Game.asmdef"), "{\"name\":");
            StringAssert.Contains("Assets/Game.asmdef: error not valid JSON", Text(tool.Call(new Dictionary<string, object>())));
            Assert.AreEqual(0, compiler.Calls);
            Assert.IsFalse(File.Exists(Full("Assets/Game.asmdef")));

            Write(Staged("Assets/readme.txt"), "x");
            Write(Staged("Assets/Game.asmdef"), "{\"name\":\"Game\"}");
            result = tool.Call(new Dictionary<string, object>());
            StringAssert.StartsWith("refused: nothing was moved.\nAssets/readme.txt: not a script", Text(result));
            Assert.IsFalse(File.Exists(Full("Assets/Game.asmdef")));
        }

        [Test]
        public void Compiler_messages_are_one_line_each_and_capped()
        {
            var messages = Enumerable.Range(1, ScriptGate.MaxMessages + 5)
                .Select(i => new CompileMessage { File = "/elsewhere/x.cs", Line = i, Column = 2, IsError = true, Text = "bad\nforged line" }).ToList();
            var text = ScriptGate.Format(messages, new List<StagedScript>(), project.Path);
            var lines = text.TrimEnd('\n').Split('\n');
            Assert.AreEqual(ScriptGate.MaxMessages + 1, lines.Length);
            Assert.AreEqual("/elsewhere/x.cs(1,2): error bad forged line", lines[0]);
            Assert.AreEqual("… and 5 more", lines.Last());
        }

        static string Text(ToolResult result) =>
            string.Join("\n", result.Content.Select(c => JsonRead.Str(c, "text")));
    }

    /// End to end: the panel's session (`PanelSession.Create`: in place, the Ops server, the gate's
    /// tool rules and instructions) in codiva's daemon with the real `claude`; the mock model writes
    /// `Assets/Foo.cs` directly (refused by the rules, no permission asked), stages a script that
    /// compiles and commits it (moved into Assets/), stages one that does not and commits it
    /// (refused with mcs's error, not moved).
    [TestFixture]
    public class ScriptGateEndToEndTests
    {
        [Test]
        public void The_gate_refuses_a_direct_script_write_commits_a_staged_script_that_compiles_and_rejects_one_that_does_not()
        {
            // The world's repository is the Unity project.
            const string Good = "namespace Game { public class Door { public string Say() => Greeter.Hello() + \" door\"; } }\n";
            const string Bad = "namespace Game { public class Broken { public int Count() => Greeter.Missing(); } }\n";
            Func<string, object> script = repo => Rules(
                When("last_user_contains", "GATE scripts", ToolUse("Write", Obj("file_path", repo + "/Assets/Foo.cs", "content", "class Foo {}\n"))),
                When("last_user_contains", "denied by your permission settings",
                    ToolUse("Write", Obj("file_path", repo + "/" + ScriptGate.StagingFolder + "/Assets/Scripts/Door.cs", "content", Good))),
                When("last_user_contains", ScriptGate.StagingFolder + "/Assets/Scripts/Door.cs", ToolUse(OpsTool(ScriptGate.CommitTool), Obj())),
                When("last_user_contains", "compiled cleanly",
                    ToolUse("Write", Obj("file_path", repo + "/" + ScriptGate.StagingFolder + "/Assets/Scripts/Broken.cs", "content", Bad))),
                When("last_user_contains", ScriptGate.StagingFolder + "/Assets/Scripts/Broken.cs", ToolUse(OpsTool(ScriptGate.CommitTool), Obj())),
                When("last_user_contains", "compile failed", Text("Gate checked.")));
            using (var world = new World(script))
            using (var unity = new ThreadDispatcher("unity-main"))
            using (var main = new ThreadDispatcher())
            {
                var assets = Path.Combine(world.Repo, "Assets", "Scripts");
                Directory.CreateDirectory(assets);
                File.WriteAllText(Path.Combine(assets, "Greeter.cs"),
                    "namespace Game { public static class Greeter { public static string Hello() => \"hello\"; } }\n");

                var registry = new ToolRegistry();
                var commit = new ScriptCommitTool(world.Repo, new McsCompiler());
                registry.Add(commit);
                registry.Enable("scripts");
                var runner = new ToolRunner(unity);
                using (var server = new McpServer(registry, runner))
                {
                    server.Start();
                    var client = new CodivaClient(new DaemonSocketTransportFactory(world.Program()), main);
                    try
                    {
                        client.Start();
                        Until(main, () => client.State == ConnectionState.Connected, "the connection");
                        var id = client.CreateSession(PanelSession.Create("GATE scripts", world.Repo, server)).Result.Session.Id;
                        client.Watch(id);

                        var asked = new List<string>();
                        var answered = new HashSet<string>();
                        while (true)
                        {
                            Until(main, () => client.Store[id]?.Status == "completed" || client.Store[id]?.Status == "failed"
                                || client.Store[id]?.Prompts.Any(p => p.Kind == "permission" && !answered.Contains(p.RequestId)) == true, "a permission or the end of the turn");
                            var open = main.Invoke(() => client.Store[id].Prompts.FirstOrDefault(p => p.Kind == "permission" && !answered.Contains(p.RequestId)));
                            if (open == null) break;
                            answered.Add(open.RequestId);
                            asked.Add(open.Tool + " " + JsonText.Write(open.Input));
                            client.RespondPermission(id, open.RequestId, open.Options.First(o => o.Kind == "allow_once").Id).Wait();
                        }
                        Assert.AreEqual("completed", main.Invoke(() => client.Store[id].Status));
                        Until(main, () => client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == "Gate checked."), "the last answer");

                        // The direct write: refused by the tool rules, never asked, never written.
                        var direct = main.Invoke(() => client.Store[id].Log.First(e => e.Kind == "tool" && e.Name == "Write"));
                        StringAssert.Contains("Assets/Foo.cs", JsonText.Write(direct.Input));
                        Assert.AreNotEqual("succeeded", direct.Status);
                        StringAssert.Contains("denied by your permission settings", direct.Result);
                        Assert.IsFalse(File.Exists(Path.Combine(world.Repo, "Assets", "Foo.cs")));
                        Assert.IsFalse(asked.Any(a => a.Contains("Assets/Foo.cs")), string.Join("\n", asked));
                        // Asked: the two staged writes and the two commits.
                        Assert.AreEqual(4, asked.Count, string.Join("\n", asked));

                        // The script that compiles is in Assets/; the one that does not is not.
                        Assert.AreEqual(Good, File.ReadAllText(Path.Combine(assets, "Door.cs")));
                        Assert.IsFalse(File.Exists(Path.Combine(assets, "Broken.cs")));
                        Assert.IsTrue(File.Exists(Path.Combine(world.Repo, ScriptGate.StagingFolder, "Assets", "Scripts", "Broken.cs")));

                        // What the model was told: the commit's list, then mcs's error at the target path.
                        var last = world.Mock.WaitForRequest(b => b.Contains("compile failed"));
                        StringAssert.Contains("compiled cleanly; moved into Assets/:\\nAssets/Scripts/Door.cs (new)", last);
                        StringAssert.Contains("Assets/Scripts/Broken.cs(1,", last);
                        StringAssert.Contains("error CS0117: `Game.Greeter' does not contain a definition for `Missing'", last);
                        // Its system prompt said how to stage.
                        StringAssert.Contains(ScriptGate.StagingFolder + "/Assets/Scripts/Foo.cs", last);
                    }
                    finally
                    {
                        client.Dispose();
                    }
                }
                Assert.IsNull(unity.Failure);
            }
        }

        /// The rules hold in a mode that accepts edits without asking (`acceptEdits`), and only
        /// scripts are refused: a text file under `Assets/` is written.
        [Test]
        public void The_gate_holds_when_edits_are_accepted_without_asking_and_refuses_only_scripts()
        {
            Func<string, object> script = repo => Rules(
                When("last_user_contains", "GATE accepting", ToolUse("Write", Obj("file_path", repo + "/Assets/Editor/Tool.asmdef", "content", "{\"name\":\"T\"}\n"))),
                When("last_user_contains", "denied by your permission settings", ToolUse("Write", Obj("file_path", repo + "/Assets/notes.txt", "content", "notes\n"))),
                When("last_user_contains", "File created successfully", Text("Done.")));
            using (var world = new World(script))
            using (var unity = new ThreadDispatcher("unity-main"))
            using (var main = new ThreadDispatcher())
            {
                Directory.CreateDirectory(Path.Combine(world.Repo, "Assets"));
                var registry = new ToolRegistry();
                using (var server = new McpServer(registry, new ToolRunner(unity)))
                {
                    server.Start();
                    var client = new CodivaClient(new DaemonSocketTransportFactory(world.Program()), main);
                    try
                    {
                        client.Start();
                        Until(main, () => client.State == ConnectionState.Connected, "the connection");
                        var parameters = PanelSession.Create("GATE accepting", world.Repo, server);
                        parameters.PermissionMode = "acceptEdits";
                        var id = client.CreateSession(parameters).Result.Session.Id;
                        client.Watch(id);
                        Until(main, () => client.Store[id]?.Log.Any(e => e.Kind == "assistant" && e.Text == "Done.") == true, "the answer");
                        Assert.AreEqual(0, main.Invoke(() => client.Store[id].Prompts.Count), "nothing was asked");
                        var writes = main.Invoke(() => client.Store[id].Log.Where(e => e.Kind == "tool" && e.Name == "Write").ToList());
                        Assert.AreEqual(2, writes.Count);
                        StringAssert.Contains("denied by your permission settings", writes[0].Result);
                        Assert.AreEqual("succeeded", writes[1].Status);
                        Assert.IsFalse(File.Exists(Path.Combine(world.Repo, "Assets", "Editor", "Tool.asmdef")));
                        Assert.AreEqual("notes\n", File.ReadAllText(Path.Combine(world.Repo, "Assets", "notes.txt")));
                    }
                    finally
                    {
                        client.Dispose();
                    }
                }
            }
        }
    }
}
