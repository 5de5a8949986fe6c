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
        const string OpsTokenKey = "Codiva.OpsToken";
        const string OpsPortKey = "Codiva.OpsPort";

        public static CodivaClient Client { get; private set; }
        public static McpServer Ops { get; private set; }
        public static EditorDispatcher Dispatcher { get; private set; }
        /// The Unity project's directory (absolute): where the panel's sessions run, in place.
        public static string ProjectDir { get; private set; }
        public static readonly ConsoleErrors ConsoleErrors = new ConsoleErrors();

        static CodivaHost()
        {
            Dispatcher = new EditorDispatcher();
            ProjectDir = Directory.GetParent(Application.dataPath).FullName;
            var program = new CodivaProgram { Path = EditorPrefs.GetString(PathPref, "codiva"), Repo = ProjectDir };
            Client = new CodivaClient(new DaemonSocketTransportFactory(program), Dispatcher);
            Client.Start();

            var runner = new ToolRunner(Dispatcher);
            var registry = new ToolRegistry();
            registry.Add(new PingTool());
            registry.Add(new JobStatusTool(runner.Jobs));
            UnityTools.Register(registry);
            foreach (var module in new[] { "core", "scene", "assets", "editor" }) registry.Enable(module);
            // The same token and port after a domain reload (SessionState lives as long as the
            // Editor): the MCP config of the sessions created before it still reaches the server.
            Ops = new McpServer(registry, runner, SessionState.GetString(OpsTokenKey, null));
            Ops.Start(SessionState.GetInt(OpsPortKey, 0));
            SessionState.SetString(OpsTokenKey, Ops.Token);
            SessionState.SetInt(OpsPortKey, Ops.Port);

            Application.logMessageReceivedThreaded += OnLog;
            AssemblyReloadEvents.beforeAssemblyReload += Shutdown;
            EditorApplication.quitting += Shutdown;
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
