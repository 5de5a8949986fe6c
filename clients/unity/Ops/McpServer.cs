// The Streamable HTTP MCP server the panel offers the agent: POST http://127.0.0.1:<port>/mcp,
// a bearer token made at each start, answers as application/json (no SSE stream: GET is 405).
// Measured against Claude Code (reference §2.9): it asks for protocol 2025-11-25 and accepts
// 2025-06-18; unknown notifications get 202; a body over 4 MB gets 413 before auth.
using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Security.Cryptography;
using System.Text;
using System.Threading;
using Codiva.Json;
using Codiva.Unity;

namespace Codiva.Ops
{
    public sealed class McpServer : IDisposable
    {
        public const string Path = "/mcp";
        public const long MaxBody = 4 * 1024 * 1024;
        /// Newest first; an unknown requested version is answered with the first.
        public static readonly string[] ProtocolVersions = { "2025-11-25", "2025-06-18", "2025-03-26" };

        readonly ToolRegistry registry;
        readonly ToolRunner runner;
        readonly HttpListener listener = new HttpListener();
        readonly HashSet<string> sessions = new HashSet<string>();
        Thread acceptor;

        public string Token { get; }
        public int Port { get; private set; }
        public string Url => "http://127.0.0.1:" + Port + Path;
        public string ServerName = "codiva-unity-ops";
        public string Version = "0.1.0";
        /// Every JSON-RPC method handled (tests and diagnostics), on the HTTP threads.
        public event Action<string> Handled;
        /// Each tool call's result with the call's tool-use id (`_meta["claudecode/toolUseId"]`,
        /// null when the client sent none), on the HTTP threads: ToolImageCache keeps its images.
        public event Action<string, ToolResult> Called;

        /// `token`: the bearer token to require; null makes a new one. The Editor keeps the token
        /// and port of its server across domain reloads (SessionState), so that the sessions
        /// created before a reload, whose MCP config holds them, reach the new server.
        public McpServer(ToolRegistry registry, ToolRunner runner, string token = null)
        {
            this.registry = registry;
            this.runner = runner;
            if (token == null || token.Length < 32)
            {
                var bytes = new byte[32];
                using (var random = RandomNumberGenerator.Create()) random.GetBytes(bytes);
                token = BitConverter.ToString(bytes).Replace("-", "").ToLowerInvariant();
            }
            Token = token;
        }

        /// Listens on loopback: on `preferredPort` when it is given and free, otherwise on a free port.
        public void Start(int preferredPort = 0)
        {
            for (var attempt = 0; ; attempt++)
            {
                int port;
                if (attempt == 0 && preferredPort > 0) port = preferredPort;
                else
                {
                    var probe = new TcpListener(IPAddress.Loopback, 0);
                    probe.Start();
                    port = ((IPEndPoint)probe.LocalEndpoint).Port;
                    probe.Stop();
                }
                listener.Prefixes.Clear();
                listener.Prefixes.Add("http://127.0.0.1:" + port + "/");
                try
                {
                    listener.Start();
                    Port = port;
                    break;
                }
                catch (HttpListenerException) when (attempt < 5) { }
                catch (SocketException) when (attempt < 5) { }
            }
            acceptor = new Thread(Accept) { IsBackground = true, Name = "codiva-ops-http" };
            acceptor.Start();
        }

        /// The server's entry of an MCP config (`mcpServers.<name>`).
        public Dictionary<string, object> ConfigEntry() => new Dictionary<string, object>
        {
            { "type", "http" },
            { "url", Url },
            { "headers", new Dictionary<string, object> { { "Authorization", "Bearer " + Token } } },
        };

        void Accept()
        {
            while (listener.IsListening)
            {
                HttpListenerContext context;
                try { context = listener.GetContext(); }
                catch (Exception) { return; }
                ThreadPool.QueueUserWorkItem(_ => Serve(context));
            }
        }

        void Serve(HttpListenerContext context)
        {
            try { Handle(context.Request, context.Response); }
            catch (Exception error)
            {
                try { Reply(context.Response, 500, Error(null, -32603, "internal error: " + error.Message)); } catch (Exception) { }
            }
        }

        void Handle(HttpListenerRequest request, HttpListenerResponse response)
        {
            if (request.Url.AbsolutePath != Path) { Reply(response, 404, null); return; }
            if (request.ContentLength64 > MaxBody) { Reply(response, 413, Error(null, -32600, "request body over 4 MB")); return; }
            var origin = request.Headers["Origin"];
            if (origin != null && !IsLoopbackOrigin(origin)) { Reply(response, 403, Error(null, -32001, "forbidden origin")); return; }
            if (!Authorized(request.Headers["Authorization"])) { Reply(response, 401, Error(null, -32001, "unauthorized")); return; }
            if (request.HttpMethod == "GET") { response.AddHeader("Allow", "POST, DELETE"); Reply(response, 405, null); return; }
            if (request.HttpMethod == "DELETE")
            {
                lock (sessions) sessions.Remove(request.Headers["Mcp-Session-Id"] ?? "");
                Reply(response, 200, null);
                return;
            }
            if (request.HttpMethod != "POST") { Reply(response, 405, null); return; }

            string body;
            var limited = new MemoryStream();
            var buffer = new byte[81920];
            int read;
            while ((read = request.InputStream.Read(buffer, 0, buffer.Length)) > 0)
            {
                limited.Write(buffer, 0, read);
                if (limited.Length > MaxBody) { Reply(response, 413, Error(null, -32600, "request body over 4 MB")); return; }
            }
            body = Encoding.UTF8.GetString(limited.ToArray());
            object message;
            try { message = JsonText.Parse(body); }
            catch (JsonException error) { Reply(response, 400, Error(null, -32700, "parse error: " + error.Message)); return; }
            if (!(message is Dictionary<string, object>)) { Reply(response, 400, Error(null, -32600, "one JSON-RPC message per request")); return; }
            var method = JsonRead.Str(message, "method");
            var id = JsonRead.Get(message, "id");
            var hasId = ((Dictionary<string, object>)message).ContainsKey("id");
            if (method == null || !hasId) { Handled?.Invoke(method ?? "(response)"); Reply(response, 202, null); return; }

            var version = request.Headers["MCP-Protocol-Version"];
            if (method != "initialize")
            {
                var session = request.Headers["Mcp-Session-Id"];
                if (session == null) { Reply(response, 400, Error(id, -32600, "missing Mcp-Session-Id")); return; }
                lock (sessions) if (!sessions.Contains(session)) { Reply(response, 404, Error(id, -32001, "unknown session")); return; }
                if (version != null && Array.IndexOf(ProtocolVersions, version) < 0) { Reply(response, 400, Error(id, -32600, "unsupported MCP-Protocol-Version " + version)); return; }
            }
            Handled?.Invoke(method);
            var parameters = JsonRead.Get(message, "params") as Dictionary<string, object> ?? new Dictionary<string, object>();
            switch (method)
            {
                case "initialize":
                    {
                        var requested = JsonRead.Str(parameters, "protocolVersion");
                        var answered = Array.IndexOf(ProtocolVersions, requested) >= 0 ? requested : ProtocolVersions[0];
                        var sessionId = Guid.NewGuid().ToString("N");
                        lock (sessions) sessions.Add(sessionId);
                        response.AddHeader("Mcp-Session-Id", sessionId);
                        Reply(response, 200, Result(id, new Dictionary<string, object>
                        {
                            { "protocolVersion", answered },
                            { "capabilities", new Dictionary<string, object> { { "tools", new Dictionary<string, object> { { "listChanged", false } } } } },
                            { "serverInfo", new Dictionary<string, object> { { "name", ServerName }, { "version", Version } } },
                        }));
                        return;
                    }
                case "ping":
                    Reply(response, 200, Result(id, new Dictionary<string, object>()));
                    return;
                case "tools/list":
                    {
                        var tools = new List<object>();
                        foreach (var tool in registry.Listed())
                        {
                            var entry = new Dictionary<string, object>
                            {
                                { "name", tool.Name },
                                { "description", tool.Description },
                                { "inputSchema", tool.InputSchema },
                            };
                            if (tool.Destructive) entry["annotations"] = new Dictionary<string, object> { { "destructiveHint", true } };
                            tools.Add(entry);
                        }
                        Reply(response, 200, Result(id, new Dictionary<string, object> { { "tools", tools } }));
                        return;
                    }
                case "tools/call":
                    {
                        var name = JsonRead.Str(parameters, "name");
                        var tool = name == null ? null : registry.Find(name);
                        if (tool == null) { Reply(response, 200, Error(id, -32602, "unknown tool: " + name)); return; }
                        var arguments = JsonRead.Get(parameters, "arguments") as Dictionary<string, object> ?? new Dictionary<string, object>();
                        var result = runner.Run(tool, arguments);
                        // The call's tool-use id, as Claude Code names it (null from other clients).
                        Called?.Invoke(JsonRead.Str(JsonRead.Get(parameters, "_meta"), "claudecode/toolUseId"), result);
                        Reply(response, 200, Result(id, result.ToJson()));
                        return;
                    }
                default:
                    Reply(response, 200, Error(id, -32601, "method not found: " + method));
                    return;
            }
        }

        bool Authorized(string header)
        {
            const string prefix = "Bearer ";
            if (header == null || !header.StartsWith(prefix, StringComparison.Ordinal)) return false;
            var given = Encoding.UTF8.GetBytes(header.Substring(prefix.Length));
            var expected = Encoding.UTF8.GetBytes(Token);
            var diff = given.Length ^ expected.Length;
            for (var i = 0; i < given.Length && i < expected.Length; i++) diff |= given[i] ^ expected[i];
            return diff == 0;
        }

        static bool IsLoopbackOrigin(string origin)
        {
            Uri uri;
            if (!Uri.TryCreate(origin, UriKind.Absolute, out uri)) return false;
            return uri.Host == "127.0.0.1" || uri.Host == "localhost" || uri.Host == "[::1]";
        }

        static Dictionary<string, object> Result(object id, object result) =>
            new Dictionary<string, object> { { "jsonrpc", "2.0" }, { "id", id }, { "result", result } };

        static Dictionary<string, object> Error(object id, long code, string message) =>
            new Dictionary<string, object> { { "jsonrpc", "2.0" }, { "id", id }, { "error", new Dictionary<string, object> { { "code", code }, { "message", message } } } };

        static void Reply(HttpListenerResponse response, int status, object body)
        {
            response.StatusCode = status;
            if (body != null)
            {
                var bytes = Encoding.UTF8.GetBytes(JsonText.Write(body));
                response.ContentType = "application/json";
                response.ContentLength64 = bytes.Length;
                response.OutputStream.Write(bytes, 0, bytes.Length);
            }
            else response.ContentLength64 = 0;
            response.OutputStream.Close();
            response.Close();
        }

        public void Dispose()
        {
            try { listener.Stop(); listener.Close(); } catch (Exception) { }
            acceptor?.Join(5000);
        }
    }

    /// The MCP config file for `claude --mcp-config <file> --strict-mcp-config`: holds the bearer
    /// token, so it is written owner-only (0600, AtomicFile: whole or not at all) and never passed
    /// inline on a command line.
    public static class McpConfigFile
    {
        public static void Write(string path, string serverName, McpServer server)
        {
            var json = JsonText.Write(new Dictionary<string, object>
            {
                { "mcpServers", new Dictionary<string, object> { { serverName, server.ConfigEntry() } } },
            });
            AtomicFile.WriteOwnerOnly(path, json);
        }
    }
}
