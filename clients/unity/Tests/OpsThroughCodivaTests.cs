// The panel's own path to its tools: a session created with `PanelSession.Create` (in place,
// the Ops server as an HTTP MCP server with its bearer header) in codiva's daemon, the real
// `claude` connected to the Ops server (under Mono) through the MCP config codiva wrote. The
// server's status comes as `session/mcpServers`; `ping` answers; a main-thread call outlives its
// wait and finishes as a job; a destructive call without confirm is refused. No tool is allowed
// in advance: every call is a permission the test answers, as the user would.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
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
    [TestFixture]
    public class OpsThroughCodivaTests
    {
        [Test]
        public void A_panel_session_reaches_the_Ops_server_through_the_config_codiva_writes()
        {
            var script = Rules(
                When("last_user_contains", "OPS through codiva", ToolUse(OpsTool("ping"), Obj())),
                When("last_user_contains", "pong", ToolUse(OpsTool("wait_for_gate"), Obj())),
                When("last_user_contains", "continues as job 2", ToolUse(OpsTool("job_status"), Obj("job_id", "2", "wait_ms", 10000L))),
                When("last_user_contains", "the gate was opened", ToolUse(OpsTool("delete_note"), Obj("name", "note.txt"))),
                When("last_user_contains", "refused: delete_note", Text("All checks done.")));
            using (var world = new World(script))
            using (var unity = new ThreadDispatcher("unity-main"))
            using (var main = new ThreadDispatcher())
            {
                var notes = Path.Combine(world.Home, "notes");
                Directory.CreateDirectory(notes);
                File.WriteAllText(Path.Combine(notes, "note.txt"), "keep me\n");

                var runner = new ToolRunner(unity) { MainThreadWait = TimeSpan.FromMilliseconds(500) };
                var registry = new ToolRegistry();
                var gate = new GateTool();
                registry.Add(new PingTool());
                registry.Add(new JobStatusTool(runner.Jobs));
                registry.Add(gate);
                registry.Add(new DeleteNoteTool(notes));
                registry.Enable("core");
                registry.Enable("test");
                runner.BecameJob += job => gate.Gate.Set();
                var handled = new List<string>();
                using (var server = new McpServer(registry, runner))
                {
                    server.Handled += method => { lock (handled) handled.Add(method); };
                    server.Start();

                    var client = new CodivaClient(new DaemonSocketTransportFactory(world.Program()), main);
                    try
                    {
                        client.Start();
                        Until(main, () => client.State == ConnectionState.Connected, "the connection");
                        var parameters = PanelSession.Create("OPS through codiva", world.Repo, server);
                        var created = client.CreateSession(parameters).Result.Session;
                        Assert.IsTrue(created.InPlace == true);
                        var id = created.Id;
                        client.Watch(id);

                        // The agent reports the server connected (session/mcpServers, kept in the row).
                        Until(main, () => client.Store[id]?.Row.McpServers?.Any(s => s.Name == PanelSession.OpsServerName && s.Status == "connected") == true,
                            "the Ops server to be reported connected");

                        // Each tool call asks; each is allowed once, until the turn completes.
                        var allowed = new List<string>();
                        while (true)
                        {
                            Until(main, () => client.Store[id].Status == "completed" || client.Store[id].Status == "failed"
                                || client.Store[id].Prompts.Any(p => p.Kind == "permission" && !allowed.Contains(p.RequestId)), "a permission or the end of the turn");
                            var open = main.Invoke(() => client.Store[id].Prompts.FirstOrDefault(p => p.Kind == "permission" && !allowed.Contains(p.RequestId)));
                            if (open == null) break;
                            allowed.Add(open.RequestId);
                            client.RespondPermission(id, open.RequestId, open.Options.First(o => o.Kind == "allow_once").Id).Wait();
                        }
                        Assert.AreEqual("completed", main.Invoke(() => client.Store[id].Status));
                        Assert.AreEqual(4, allowed.Count, "one permission per tool call");
                        Until(main, () => client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == "All checks done."), "the last answer");

                        lock (handled)
                        {
                            CollectionAssert.IsSubsetOf(new[] { "initialize", "notifications/initialized", "tools/list", "tools/call" }, handled);
                            Assert.AreEqual(4, handled.Count(m => m == "tools/call"));
                        }
                        var last = world.Mock.WaitForRequest(b => b.Contains("refused: delete_note"));
                        StringAssert.Contains("pong", last);
                        StringAssert.Contains("continues as job 2", last);
                        StringAssert.Contains("job 2 (wait_for_gate) finished:", last);
                        StringAssert.Contains("refused: delete_note is destructive", last);
                        Assert.AreEqual("keep me\n", File.ReadAllText(Path.Combine(notes, "note.txt")), "nothing was deleted");
                        // The model was told of the Ops tools.
                        var init = world.Mock.Requests().Select(r => JsonText.Write(JsonRead.Get(r, "body"))).First(b => b.Contains("OPS through codiva"));
                        StringAssert.Contains(OpsTool("ping"), init);
                    }
                    finally
                    {
                        client.Dispose();
                    }
                }
                Assert.IsNull(unity.Failure);
            }
        }
    
        /// The Ops server is not up when the session starts (as after a domain reload, before the
        /// Editor started it again): the agent reports it `failed`. Once it listens at the same
        /// address with the same token, `session/mcpReconnect` brings it to `connected` and a
        /// tool call reaches it.
        [Test]
        public void A_failed_Ops_server_is_reconnected_once_it_listens_again()
        {
            var script = Rules(
                When("last_user_contains", "FIRST wait", Text("Waiting.")),
                When("last_user_contains", "SECOND ping", ToolUse(OpsTool("ping"), Obj())),
                When("last_user_contains", "pong", Text("It answered.")));
            using (var world = new World(script))
            using (var unity = new ThreadDispatcher("unity-main"))
            using (var main = new ThreadDispatcher())
            {
                var runner = new ToolRunner(unity);
                var registry = new ToolRegistry();
                registry.Add(new PingTool());
                registry.Enable("core");
                var handled = new List<string>();
                // A port nothing listens on yet, and the token the server will have.
                var probe = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
                probe.Start();
                var port = ((System.Net.IPEndPoint)probe.LocalEndpoint).Port;
                probe.Stop();
                using (var server = new McpServer(registry, runner))
                {
                    server.Handled += method => { lock (handled) handled.Add(method); };
                    var entry = McpServerConfig.Http("http://127.0.0.1:" + port + McpServer.Path,
                        new Dictionary<string, string> { { "Authorization", "Bearer " + server.Token } });
                    var client = new CodivaClient(new DaemonSocketTransportFactory(world.Program()), main);
                    try
                    {
                        client.Start();
                        Until(main, () => client.State == ConnectionState.Connected, "the connection");
                        var id = client.CreateSession(new CreateParams
                        {
                            Prompt = "FIRST wait",
                            InPlace = world.Repo,
                            McpServers = new Dictionary<string, McpServerConfig> { { PanelSession.OpsServerName, entry } },
                        }).Result.Session.Id;
                        client.Watch(id);
                        Until(main, () => client.Store[id]?.Row.McpServers?.Any(s => s.Name == PanelSession.OpsServerName && s.Status == "failed") == true,
                            "the unreachable server to be reported failed");
                        Until(main, () => client.Store[id].Status == "completed", "the first turn");

                        server.Start(port);
                        Assert.AreEqual(entry.Url, server.Url);
                        client.ReconnectMcp(id, PanelSession.OpsServerName).Wait();
                        Until(main, () => client.Store[id].Row.McpServers.Any(s => s.Name == PanelSession.OpsServerName && s.Status == "connected"),
                            "the server to be reported connected after session/mcpReconnect");

                        client.Send(id, "SECOND ping").Wait();
                        Until(main, () => client.Store[id].Prompts.Any(p => p.Kind == "permission"), "the permission for ping");
                        var permission = main.Invoke(() => client.Store[id].Prompts.First(p => p.Kind == "permission"));
                        client.RespondPermission(id, permission.RequestId, permission.Options.First(o => o.Kind == "allow_once").Id).Wait();
                        Until(main, () => client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == "It answered."), "the answer after pong");
                        lock (handled) CollectionAssert.Contains(handled, "tools/call");
                    }
                    finally
                    {
                        client.Dispose();
                    }
                }
                Assert.IsNull(unity.Failure);
            }
        }
}
}
