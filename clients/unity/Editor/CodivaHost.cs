// Owns the client and the Ops server for the Editor's lifetime. A domain reload tears both
// down (beforeAssemblyReload) and [InitializeOnLoad] builds them again: the sessions live in
// codiva's daemon, so the panel only reconnects and reads the snapshot.
using System.IO;
using Codiva.Client;
using Codiva.Ops;
using Codiva.Rpc;
using UnityEditor;
using UnityEngine;

namespace Codiva.Editor
{
    [InitializeOnLoad]
    public static class CodivaHost
    {
        public const string PathPref = "Codiva.ProgramPath";
        public const string OpsServerName = "unity-ops";

        public static CodivaClient Client { get; private set; }
        public static McpServer Ops { get; private set; }
        public static EditorDispatcher Dispatcher { get; private set; }
        public static readonly ConsoleErrors ConsoleErrors = new ConsoleErrors();

        static CodivaHost()
        {
            Dispatcher = new EditorDispatcher();
            var project = Directory.GetParent(Application.dataPath).FullName;
            var program = new CodivaProgram { Path = EditorPrefs.GetString(PathPref, "codiva"), Repo = project };
            Client = new CodivaClient(new DaemonSocketTransportFactory(program), Dispatcher);
            Client.Start();

            var runner = new ToolRunner(Dispatcher);
            var registry = new ToolRegistry();
            registry.Add(new PingTool());
            registry.Add(new JobStatusTool(runner.Jobs));
            UnityTools.Register(registry);
            foreach (var module in new[] { "core", "scene", "assets", "editor" }) registry.Enable(module);
            Ops = new McpServer(registry, runner);
            Ops.Start();

            Application.logMessageReceivedThreaded += OnLog;
            AssemblyReloadEvents.beforeAssemblyReload += Shutdown;
            EditorApplication.quitting += Shutdown;
        }

        /// The MCP config for a session of this project (written 0600, passed by path).
        public static string WriteMcpConfig()
        {
            var path = Path.Combine(Directory.GetParent(Application.dataPath).FullName, "UserSettings", "codiva-mcp.json");
            Directory.CreateDirectory(Path.GetDirectoryName(path));
            McpConfigFile.Write(path, OpsServerName, Ops);
            return path;
        }

        static void OnLog(string message, string stackTrace, LogType type)
        {
            if (type == LogType.Error || type == LogType.Exception) ConsoleErrors.Add(message);
        }

        static void Shutdown()
        {
            Application.logMessageReceivedThreaded -= OnLog;
            Client?.Dispose();
            Ops?.Dispose();
            Dispatcher?.Dispose();
            Client = null;
            Ops = null;
        }
    }
}
