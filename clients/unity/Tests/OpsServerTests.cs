// The Ops server's HTTP and MCP rules, spoken to directly over loopback HTTP.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using Codiva.Client;
using Codiva.Json;
using Codiva.Ops;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class OpsServerTests
    {
        ThreadDispatcher main;
        ToolRunner runner;
        ToolRegistry registry;
        McpServer server;
        HttpClient http;
        TempDir dir;

        [SetUp]
        public void Start()
        {
            dir = new TempDir("codiva-ops-");
            main = new ThreadDispatcher("unity-main");
            runner = new ToolRunner(main);
            registry = new ToolRegistry();
            registry.Add(new PingTool());
            registry.Add(new JobStatusTool(runner.Jobs));
            registry.Add(new DeleteNoteTool(dir.Path));
            registry.Enable("core");
            registry.Enable("test");
            server = new McpServer(registry, runner);
            server.Start();
            http = new HttpClient();
        }

        [TearDown]
        public void Stop()
        {
            http.Dispose();
            server.Dispose();
            main.Dispose();
            dir.Dispose();
        }

        HttpResponseMessage Post(object body, string token = "", string session = null, string version = null)
        {
            var request = new HttpRequestMessage(HttpMethod.Post, server.Url)
            {
                Content = new StringContent(body as string ?? JsonText.Write(body), Encoding.UTF8, "application/json"),
            };
            request.Headers.TryAddWithoutValidation("Authorization", "Bearer " + (token == "" ? server.Token : token));
            if (session != null) request.Headers.TryAddWithoutValidation("Mcp-Session-Id", session);
            if (version != null) request.Headers.TryAddWithoutValidation("MCP-Protocol-Version", version);
            return http.SendAsync(request).Result;
        }

        static object Rpc(string method, object parameters = null, long? id = 1)
        {
            var message = new Dictionary<string, object> { { "jsonrpc", "2.0" }, { "method", method }, { "params", parameters ?? new Dictionary<string, object>() } };
            if (id != null) message["id"] = id.Value;
            return message;
        }

        static object Body(HttpResponseMessage response) => JsonText.Parse(response.Content.ReadAsStringAsync().Result);

        string Initialize(string version = "2025-11-25")
        {
            var response = Post(Rpc("initialize", new Dictionary<string, object> { { "protocolVersion", version } }));
            Assert.AreEqual(HttpStatusCode.OK, response.StatusCode);
            return response.Headers.GetValues("Mcp-Session-Id").Single();
        }

        object Call(string session, string tool, Dictionary<string, object> arguments)
        {
            var response = Post(Rpc("tools/call", new Dictionary<string, object> { { "name", tool }, { "arguments", arguments } }), session: session);
            Assert.AreEqual(HttpStatusCode.OK, response.StatusCode);
            return Body(response);
        }

        static string Text(object callAnswer) =>
            string.Join("\n", JsonRead.Arr(JsonRead.Get(callAnswer, "result"), "content").Select(c => JsonRead.Str(c, "text")));

        static bool IsError(object callAnswer) => JsonRead.Get(JsonRead.Get(callAnswer, "result"), "isError") is bool b && b;

        [Test]
        public void Listens_on_loopback_only()
        {
            StringAssert.StartsWith("http://127.0.0.1:", server.Url);
            // The kernel's table of listening TCP sockets: this port is bound to 127.0.0.1 only.
            var port = server.Port.ToString("X4");
            var listening = File.ReadAllLines("/proc/net/tcp").Concat(File.ReadAllLines("/proc/net/tcp6")).Skip(0)
                .Select(l => l.Trim().Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries))
                .Where(f => f.Length > 3 && f[1].EndsWith(":" + port) && f[3] == "0A")
                .Select(f => f[1].Split(':')[0]).ToList();
            CollectionAssert.AreEqual(new[] { "0100007F" }, listening);
        }

        [Test]
        public void Without_the_token_a_request_is_401()
        {
            var response = Post(Rpc("initialize"), token: "not-the-token");
            Assert.AreEqual(HttpStatusCode.Unauthorized, response.StatusCode);
            Assert.AreEqual(-32001L, JsonRead.Long(JsonRead.Get(Body(response), "error"), "code"));
        }

        [Test]
        public void A_body_over_4_MB_is_413_before_auth_and_before_it_is_read()
        {
            // Only the headers are sent: the answer comes without the body being read.
            using (var tcp = new System.Net.Sockets.TcpClient("127.0.0.1", server.Port))
            {
                var stream = tcp.GetStream();
                var head = Encoding.ASCII.GetBytes("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer wrong\r\n" +
                    "Content-Type: application/json\r\nContent-Length: " + (McpServer.MaxBody + 1) + "\r\n\r\n");
                stream.Write(head, 0, head.Length);
                var status = new StreamReader(stream, Encoding.ASCII).ReadLine();
                StringAssert.StartsWith("HTTP/1.1 413", status);
            }
        }

        [Test]
        public void Get_is_405_and_notifications_are_202()
        {
            var request = new HttpRequestMessage(HttpMethod.Get, server.Url);
            request.Headers.TryAddWithoutValidation("Authorization", "Bearer " + server.Token);
            Assert.AreEqual(HttpStatusCode.MethodNotAllowed, http.SendAsync(request).Result.StatusCode);
            var session = Initialize();
            Assert.AreEqual(HttpStatusCode.Accepted, Post(Rpc("notifications/initialized", id: null), session: session).StatusCode);
            Assert.AreEqual(HttpStatusCode.Accepted, Post(Rpc("notifications/whatever", id: null), session: session).StatusCode);
        }

        [Test]
        public void Protocol_versions_are_negotiated_and_sessions_required()
        {
            var response = Post(Rpc("initialize", new Dictionary<string, object> { { "protocolVersion", "2025-06-18" } }));
            Assert.AreEqual("2025-06-18", JsonRead.Str(JsonRead.Get(Body(response), "result"), "protocolVersion"));
            response = Post(Rpc("initialize", new Dictionary<string, object> { { "protocolVersion", "1999-01-01" } }));
            Assert.AreEqual(McpServer.ProtocolVersions[0], JsonRead.Str(JsonRead.Get(Body(response), "result"), "protocolVersion"));
            Assert.AreEqual(HttpStatusCode.BadRequest, Post(Rpc("tools/list")).StatusCode, "no session id");
            Assert.AreEqual(HttpStatusCode.NotFound, Post(Rpc("tools/list"), session: "nope").StatusCode, "unknown session id");
            var session = Initialize();
            Assert.AreEqual(HttpStatusCode.BadRequest, Post(Rpc("tools/list"), session: session, version: "1999-01-01").StatusCode);
            Assert.AreEqual(-32601L, JsonRead.Long(JsonRead.Get(Body(Post(Rpc("prompts/list"), session: session)), "error"), "code"));
            Assert.AreEqual(-32700L, JsonRead.Long(JsonRead.Get(Body(Post("{not json", session: session)), "error"), "code"));
        }

        [Test]
        public void Tools_list_and_call_follow_the_enabled_modules()
        {
            var session = Initialize();
            Func<List<string>> names = () => JsonRead.Arr(JsonRead.Get(Body(Post(Rpc("tools/list"), session: session)), "result"), "tools")
                .Select(t => JsonRead.Str(t, "name")).ToList();
            CollectionAssert.AreEqual(new[] { "ping", "job_status", "delete_note" }, names());
            registry.Enable("test", false);
            CollectionAssert.AreEqual(new[] { "ping", "job_status" }, names());
            var refused = Call(session, "delete_note", new Dictionary<string, object> { { "name", "x" } });
            Assert.AreEqual(-32602L, JsonRead.Long(JsonRead.Get(refused, "error"), "code"));
            Assert.AreEqual("pong", Text(Call(session, "ping", new Dictionary<string, object>())));
        }

        [Test]
        public void A_destructive_tool_previews_with_dry_run_refuses_without_confirm_and_acts_with_it()
        {
            var note = Path.Combine(dir.Path, "note.txt");
            File.WriteAllText(note, "12345");
            var session = Initialize();
            var dry = Call(session, "delete_note", new Dictionary<string, object> { { "name", "note.txt" }, { "dry_run", true }, { "confirm", true } });
            Assert.IsFalse(IsError(dry));
            StringAssert.StartsWith("dry run: delete_note would delete note.txt (5 bytes)", Text(dry));
            var refused = Call(session, "delete_note", new Dictionary<string, object> { { "name", "note.txt" } });
            Assert.IsTrue(IsError(refused));
            StringAssert.StartsWith("refused: delete_note is destructive", Text(refused));
            Assert.IsTrue(File.Exists(note));
            var done = Call(session, "delete_note", new Dictionary<string, object> { { "name", "note.txt" }, { "confirm", true } });
            Assert.AreEqual("deleted note.txt", Text(done));
            Assert.IsFalse(File.Exists(note));
            var gone = Call(session, "delete_note", new Dictionary<string, object> { { "name", "note.txt" }, { "confirm", true } });
            Assert.IsTrue(IsError(gone));
            Assert.AreEqual("no note note.txt", Text(gone));
        }

        [Test]
        public void Job_status_of_an_unknown_job_is_a_tool_error_and_the_ledger_keeps_the_newest()
        {
            var session = Initialize();
            var unknown = Call(session, "job_status", new Dictionary<string, object> { { "job_id", "999" } });
            Assert.IsTrue(IsError(unknown));
            var ledger = new JobLedger();
            var first = ledger.Create("a");
            typeof(Job).GetMethod("Finish", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance).Invoke(first, new object[] { ToolResult.Text("done") });
            for (var i = 0; i < JobLedger.Capacity; i++) ledger.Create("b");
            Assert.IsNull(ledger.Find(first.Id), "the oldest finished job is forgotten");
            Assert.IsNotNull(ledger.Find("2"), "unfinished jobs are kept");
        }
    
        [Test]
        public void A_panel_session_runs_in_place_with_the_Ops_server_and_its_bearer_header()
        {
            var create = Codiva.Protocol.Wire.ToJson(PanelSession.Create("make a cube", "/work/Game", server));
            Assert.AreEqual(JsonText.Write(new Dictionary<string, object>
            {
                { "prompt", "make a cube" },
                { "append_system_prompt", ScriptGate.Instructions("unity-ops") },
                { "approval_policy", new Dictionary<string, object> { { "mode", "ask" } } },
                { "disallowed_tools", new List<object> { "Edit(Assets/**/*.cs)", "Edit(Assets/**/*.asmdef)" } },
                { "in_place", "/work/Game" },
                { "mcp_servers", new Dictionary<string, object>
                {
                    { "unity-ops", new Dictionary<string, object>
                    {
                        { "type", "http" },
                        { "url", server.Url },
                        { "headers", new Dictionary<string, object> { { "Authorization", "Bearer " + server.Token } } },
                    } },
                } },
            }), JsonText.Write(create), "no tool is allowed in advance (asked, whatever codiva's default policy); scripts under Assets/ are the gate's");
        }

        [Test]
        public void A_server_started_again_with_the_kept_token_and_port_answers_at_the_same_address()
        {
            var url = server.Url;
            var token = server.Token;
            server.Dispose();
            // What the Editor does after a domain reload (the token and port kept in SessionState).
            server = new McpServer(registry, runner, token);
            server.Start(new Uri(url).Port);
            Assert.AreEqual(url, server.Url);
            Assert.AreEqual(token, server.Token);
            Assert.AreEqual(HttpStatusCode.OK, Post(Rpc("initialize", new Dictionary<string, object> { { "protocolVersion", "2025-11-25" } })).StatusCode);
            Assert.AreEqual(HttpStatusCode.Unauthorized, Post(Rpc("initialize", new Dictionary<string, object>()), token: "0123456789abcdef0123456789abcdef").StatusCode);
        }
}
}
