// A session's MCP servers in the store: the row's statuses (the row is the manager's: a
// `session/updated` carries them; a `session/mcpServers` event alone leaves it alone), the
// agent's capabilities from `agents/list`, the lines the panel lists (a Reconnect only for a
// failed server of an agent that reconnects), and the `session/mcpReconnect` request with the
// daemon's refusal, over a socket without a daemon.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using Codiva.Client;
using Codiva.Json;
using Codiva.Protocol;
using Codiva.Rpc;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class McpStoreTests
    {
        static string RowJson(string id, string agent, string servers = "[]") =>
            "{\"id\":\"" + id + "\",\"agent\":\"" + agent + "\",\"phase\":\"live\",\"status\":\"running\",\"mcp_servers\":" + servers + "}";

        static SessionInfo Row(string id, string agent) => Wire.FromJson<SessionInfo>(JsonText.Parse(RowJson(id, agent)));

        static readonly Dictionary<string, string> AgentOf = new Dictionary<string, string> { { "c", "claude" }, { "x", "codex" }, { "a", "codex-acp" } };

        /// What the daemon sends when a session's MCP servers change: the event, then the row.
        static Sequenced McpEvent(long seq, string id, string servers) => Notifications.Read("session/mcpServers",
            (Dictionary<string, object>)JsonText.Parse("{\"seq\":" + seq + ",\"session_id\":\"" + id + "\",\"event\":\"mcp_servers\",\"servers\":" + servers + "}"));

        static Sequenced Updated(long seq, string id, string servers) => Notifications.Read("session/updated",
            (Dictionary<string, object>)JsonText.Parse("{\"seq\":" + seq + ",\"session\":" + RowJson(id, AgentOf[id], servers) + "}"));

        static SessionStore Store()
        {
            var store = new SessionStore();
            store.Reset(new ManagerSnapshot { Seq = 0, Sessions = new List<SessionInfo> { Row("c", "claude"), Row("x", "codex"), Row("a", "codex-acp") } });
            return store;
        }

        static List<AgentAvailability> Agents() => Wire.FromJson<AgentsResult>(JsonText.Parse(
            "{\"agents\":[" +
            "{\"id\":\"claude\",\"name\":\"Claude Code\",\"status\":\"installed\",\"default\":true,\"capabilities\":" + Caps(true, true) + "}," +
            "{\"id\":\"codex\",\"name\":\"Codex\",\"status\":\"installed\",\"default\":false,\"capabilities\":" + Caps(true, true) + "}," +
            "{\"id\":\"codex-acp\",\"name\":\"Codex (ACP)\",\"status\":\"installed\",\"default\":false,\"capabilities\":" + Caps(false, false) + "}]}")).Agents;

        static string Caps(bool status, bool reconnect) =>
            "{\"permissions\":true,\"interrupt\":true,\"set_model\":true,\"set_mode\":true,\"resume\":true,\"model_catalog\":true," +
            "\"usage\":true,\"cost\":false,\"transcript_restore\":false,\"mcp_servers\":true,\"mcp_status\":" + (status ? "true" : "false") +
            ",\"mcp_reconnect\":" + (reconnect ? "true" : "false") + "}";

        [Test]
        public void Statuses_come_from_events_and_reconnect_is_offered_only_where_the_agent_can()
        {
            var store = Store();
            var changed = new List<string>();
            store.Changed += id => changed.Add(id);
            var seq = 0;
            foreach (var change in new[]
            {
                ("c", "[{\"name\":\"ops\",\"status\":\"pending\"}]"),
                ("c", "[{\"name\":\"ops\",\"status\":\"failed\",\"error\":\"connection refused\\nat 127.0.0.1\"}]"),
                ("x", "[{\"name\":\"bad\",\"status\":\"failed\"},{\"name\":\"tool\",\"status\":\"connected\"}]"),
                ("a", "[{\"name\":\"tool\",\"status\":\"not_reported\"}]"),
            })
            {
                string id = change.Item1, servers = change.Item2;
                var before = JsonText.Write(Wire.ToJson(store[id].Row.McpServers));
                Assert.AreEqual(Applied.Applied, store.Apply(McpEvent(++seq, id, servers)));
                Assert.AreEqual(before, JsonText.Write(Wire.ToJson(store[id].Row.McpServers)), "the event alone leaves the row as the manager said");
                Assert.AreEqual(Applied.Applied, store.Apply(Updated(++seq, id, servers)));
            }
            CollectionAssert.IsSubsetOf(new[] { "c", "x", "a" }, changed);
            Assert.AreEqual("failed", store["c"].Row.McpServers.Single().Status);

            // Before `agents/list` answered nothing is offered.
            Assert.IsFalse(store.McpOf("c").Single().CanReconnect);

            store.SetAgents(Agents());
            var claude = store.McpOf("c").Single();
            Assert.AreEqual("ops: failed (connection refused at 127.0.0.1)", claude.Text);
            Assert.IsTrue(claude.CanReconnect);
            var codex = store.McpOf("x");
            CollectionAssert.AreEqual(new[] { true, false }, codex.Select(l => l.CanReconnect).ToArray());
            Assert.AreEqual("tool: connected", codex[1].Text);
            var acp = store.McpOf("a").Single();
            Assert.AreEqual("tool: not reported by the agent", acp.Text);
            Assert.AreEqual("not_reported", acp.Status);
            Assert.IsFalse(acp.CanReconnect);
            Assert.IsFalse(store.CapabilitiesOf("a").McpReconnect == true);
            CollectionAssert.IsEmpty(store.McpOf("nosuch"));
        }

        [Test]
        public void The_reconnect_request_names_session_and_server_and_a_refusal_keeps_its_reason()
        {
            using (var dir = new TempDir("codiva-sock-"))
            {
                var path = Path.Combine(dir.Path, "m.sock");
                var listener = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
                listener.Bind(new UnixEndPoint(path));
                listener.Listen(1);
                var received = new List<string>();
                var peer = new Thread(() =>
                {
                    using (var socket = listener.Accept())
                    using (var stream = new NetworkStream(socket))
                    {
                        var reader = new StreamReader(stream, new UTF8Encoding(false));
                        for (var i = 0; i < 2; i++)
                        {
                            var line = reader.ReadLine();
                            received.Add(line);
                            var request = JsonText.Parse(line);
                            var id = JsonRead.Long(request, "id");
                            var server = JsonRead.Str(JsonRead.Get(request, "params"), "server");
                            var answer = server == "ops"
                                ? "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{}}\n"
                                : "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":{\"code\":-32002,\"message\":\"Codex (ACP) does not reconnect MCP servers\"," +
                                  "\"data\":{\"reason\":\"unsupported_by_agent\",\"args\":[\"codex-acp\",\"mcp_reconnect\"]}}}\n";
                            var bytes = Encoding.UTF8.GetBytes(answer);
                            stream.Write(bytes, 0, bytes.Length);
                            stream.Flush();
                        }
                    }
                });
                peer.Start();
                using (var connection = new RpcConnection(UnixSocketTransport.Connect(path)))
                {
                    connection.Start();
                    var done = connection.Call(Methods.SessionMcpReconnect, new McpReconnectParams { SessionId = "c", Server = "ops" });
                    Assert.IsTrue(done.Wait(TimeSpan.FromSeconds(30)));
                    var refused = connection.Call(Methods.SessionMcpReconnect, new McpReconnectParams { SessionId = "a", Server = "tool" });
                    var error = Assert.Throws<AggregateException>(() => refused.Wait(TimeSpan.FromSeconds(30))).InnerException as RpcException;
                    Assert.IsNotNull(error);
                    Assert.AreEqual(-32002, error.Code);
                    Assert.AreEqual("unsupported_by_agent", error.Reason);
                }
                peer.Join();
                listener.Dispose();
                var first = JsonText.Parse(received[0]);
                Assert.AreEqual("session/mcpReconnect", JsonRead.Str(first, "method"));
                Assert.AreEqual("c", JsonRead.Str(JsonRead.Get(first, "params"), "session_id"));
                Assert.AreEqual("ops", JsonRead.Str(JsonRead.Get(first, "params"), "server"));
            }
        }
    }
}
