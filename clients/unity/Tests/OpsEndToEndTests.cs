// The real `claude` connected to the Ops server (running here, under Mono) through an MCP
// config file: it lists the plain tools, calls `ping`, a main-thread call that outlives its
// wait finishes as a job read with `job_status`, and a destructive call without confirm is
// refused (the file it would delete is still there).
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;
using Codiva.Client;
using Codiva.Json;
using Codiva.Ops;
using NUnit.Framework;
using static Codiva.Tests.Script;

namespace Codiva.Tests
{
    /// A main-thread tool that holds the main thread until the test opens the gate.
    sealed class GateTool : ITool
    {
        public readonly ManualResetEventSlim Gate = new ManualResetEventSlim();
        public string Name => "wait_for_gate";
        public string Module => "test";
        public string Description => "Holds the main thread until the test opens the gate.";
        public Dictionary<string, object> InputSchema => Args.Schema();
        public ThreadAffinity Affinity => ThreadAffinity.MainThread;
        public bool Destructive => false;
        public ToolResult Call(Dictionary<string, object> arguments)
        {
            Gate.Wait();
            return ToolResult.Text("the gate was opened");
        }
    }

    /// A destructive tool over a real directory: deletes one file.
    sealed class DeleteNoteTool : DestructiveTool
    {
        readonly string dir;
        public DeleteNoteTool(string dir) { this.dir = dir; }
        public override string Name => "delete_note";
        public override string Module => "test";
        public override string Description => "Deletes a note file.";
        protected override Dictionary<string, object> Arguments => Args.Schema("name", "string", "the note's file name").Require("name");

        string PathOf(Dictionary<string, object> arguments)
        {
            var name = Args.RequireString(arguments, "name");
            if (name.Contains("/") || name.Contains("..")) throw new ToolError("`name` is a file name, not a path");
            var path = Path.Combine(dir, name);
            if (!File.Exists(path)) throw new ToolError("no note " + name);
            return path;
        }

        protected override string Preview(Dictionary<string, object> arguments)
        {
            var path = PathOf(arguments);
            return "delete " + Path.GetFileName(path) + " (" + new FileInfo(path).Length + " bytes)";
        }

        protected override ToolResult Execute(Dictionary<string, object> arguments)
        {
            var path = PathOf(arguments);
            File.Delete(path);
            return ToolResult.Text("deleted " + Path.GetFileName(path));
        }
    }

    [TestFixture]
    public class OpsEndToEndTests
    {
        const string Server = "unity-ops";

        static string Tool(string name) => "mcp__" + Server + "__" + name;

        [Test]
        public void Claude_lists_the_tools_pings_gets_a_job_result_and_is_refused_without_confirm()
        {
            var script = Rules(
                When("last_user_contains", "OPS run the checks", ToolUse(Tool("ping"), Obj())),
                When("last_user_contains", "pong", ToolUse(Tool("wait_for_gate"), Obj())),
                When("last_user_contains", "continues as job 2", ToolUse(Tool("job_status"), Obj("job_id", "2", "wait_ms", 10000L))),
                When("last_user_contains", "the gate was opened", ToolUse(Tool("delete_note"), Obj("name", "note.txt"))),
                When("last_user_contains", "refused: delete_note", Text("All checks done.")));
            using (var world = new World(script))
            using (var main = new ThreadDispatcher("unity-main"))
            {
                var notes = Path.Combine(world.Home, "notes");
                Directory.CreateDirectory(notes);
                File.WriteAllText(Path.Combine(notes, "note.txt"), "keep me\n");

                var runner = new ToolRunner(main) { MainThreadWait = TimeSpan.FromMilliseconds(500) };
                var registry = new ToolRegistry();
                var gate = new GateTool();
                registry.Add(new PingTool());
                registry.Add(new JobStatusTool(runner.Jobs));
                registry.Add(gate);
                registry.Add(new DeleteNoteTool(notes));
                registry.Enable("core");
                registry.Enable("test");
                // The gate opens once the call has become a job: it outlives its wait whatever the
                // machine's speed.
                runner.BecameJob += job => gate.Gate.Set();
                var handled = new List<string>();
                using (var server = new McpServer(registry, runner))
                {
                    server.Handled += method => { lock (handled) handled.Add(method); };
                    server.Start();
                    var config = Path.Combine(world.Home, "mcp.json");
                    McpConfigFile.Write(config, Server, server);
                    Assert.AreEqual("600", Run.Program("stat", "-c %a " + config, world.Home).Trim(), "the config holds the token: owner-only");

                    var output = RunClaude(world, "OPS run the checks", "--mcp-config", config, "--strict-mcp-config",
                        "--allowedTools", string.Join(",", new[] { "ping", "job_status", "wait_for_gate", "delete_note" }.Select(Tool)));

                    lock (handled)
                    {
                        CollectionAssert.IsSubsetOf(new[] { "initialize", "notifications/initialized", "tools/list", "tools/call" }, handled);
                        Assert.AreEqual(4, handled.Count(m => m == "tools/call"));
                    }
                    var last = world.Mock.WaitForRequest(b => b.Contains("refused: delete_note"));
                    var requests = world.Mock.Requests().Select(r => JsonText.Write(JsonRead.Get(r, "body"))).Where(b => b.Contains("OPS run the checks")).ToList();
                    // tools/list reached the agent: its init lists the tools, and the model was told
                    // of them (Claude Code 2.1.332 lists MCP tools as deferred, by name).
                    var init = output.Split('\n').First(l => l.Contains("\"subtype\":\"init\""));
                    foreach (var name in new[] { "ping", "job_status" })
                    {
                        StringAssert.Contains("\"" + Tool(name) + "\"", init);
                        StringAssert.Contains(Tool(name), requests[0]);
                    }
                    StringAssert.Contains("{\"name\":\"unity-ops\",\"status\":\"connected\"", init);
                    StringAssert.Contains("pong", last);
                    StringAssert.Contains("continues as job 2", last);
                    StringAssert.Contains("job 2 (wait_for_gate) finished:", last);
                    StringAssert.Contains("refused: delete_note is destructive", last);
                    StringAssert.Contains("delete note.txt (8 bytes)", last);
                    Assert.AreEqual("keep me\n", File.ReadAllText(Path.Combine(notes, "note.txt")), "nothing was deleted");
                    StringAssert.Contains("All checks done.", output);
                }
                Assert.IsNull(main.Failure);
            }
        }

        /// `claude -p` in its own process group (setsid), killed as a group if it overstays.
        static string RunClaude(World world, string prompt, params string[] args)
        {
            var all = new List<string> { Paths.Require(Paths.Claude), "-p", prompt, "--output-format", "stream-json", "--verbose" };
            all.AddRange(args);
            var info = new ProcessStartInfo("/usr/bin/setsid", string.Join(" ", all.Select(Run.Quote)))
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                RedirectStandardInput = true,
                WorkingDirectory = world.Repo,
            };
            info.EnvironmentVariables.Clear();
            foreach (var pair in world.AgentEnvironment()) info.EnvironmentVariables[pair.Key] = pair.Value;
            using (var process = Process.Start(info))
            {
                process.StandardInput.Close();
                var error = process.StandardError.ReadToEndAsync();
                var output = process.StandardOutput.ReadToEndAsync();
                var exited = process.WaitForExit(180000);
                if (!exited) Process.Start("kill", "-KILL -- -" + process.Id)?.WaitForExit();
                process.WaitForExit();
                Assert.IsTrue(exited, "claude did not finish");
                Assert.AreEqual(0, process.ExitCode, "claude: " + error.Result + output.Result);
                return output.Result;
            }
        }
    }
}
