// Owns the client, the Ops server and the turn scope for the Editor's lifetime. A domain reload
// tears them down (beforeAssemblyReload) and [InitializeOnLoad] builds them again: the sessions
// live in codiva's daemon, so the panel only reconnects and reads the snapshot; a turn still
// running then opens its scope again (a new Undo step for the rest of it).
using System.IO;
using Codiva.Client;
using Codiva.Ops;
using Codiva.Rpc;
using Codiva.Unity;
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
        /// The user's console ignore patterns, one per line (EditorPrefs).
        public const string ConsoleIgnorePref = "Codiva.ConsoleIgnore";
        public static readonly ConsoleDigest Console = new ConsoleDigest();
        /// One Undo step and one refresh per turn of the panel's sessions.
        public static TurnScope Turns { get; private set; }
        public static readonly UnityAssetIndex Assets = new UnityAssetIndex();
        /// The panel's sends: held while Unity compiles, in `Temp/Codiva/queued-sends.json` (Unity
        /// empties the project's Temp/ when the Editor quits; the file outlives domain reloads).
        public static SendQueue Sends { get; private set; }
        /// The images the Ops tools returned, by call (Library/Codiva/ToolImages, kept 7 days).
        public static ToolImageCache ToolImages { get; private set; }
        /// The Ops tools (what the auto-approve levels name) and the level picked per session.
        public static ToolRegistry Tools { get; private set; }
        public static AutoApproveChoices Approvals { get; private set; }
        /// The markers and pins in the Scene view (Library/Codiva/markers.json).
        public static MarkerLedger Markers { get; private set; }

        static CodivaHost()
        {
            Dispatcher = new EditorDispatcher();
            ProjectDir = Directory.GetParent(Application.dataPath).FullName;
            var program = new CodivaProgram { Path = EditorPrefs.GetString(PathPref, "codiva"), Repo = ProjectDir, Os = EditorCommands.Os };
            Client = new CodivaClient(new DaemonSocketTransportFactory(program), Dispatcher);
            Client.Start();
            Sends = new SendQueue(Path.Combine(ProjectDir, "Temp", "Codiva", "queued-sends.json"), new ClientSendChannel(() => Client), new UnityCompileState());
            if (Sends.Problem != null) Debug.LogWarning("codiva: " + Sends.Problem);
            EditorApplication.update += PumpSends;

            var runner = new ToolRunner(Dispatcher);
            var registry = new ToolRegistry();
            registry.Add(new PingTool());
            registry.Add(new JobStatusTool(runner.Jobs));
            UnityTools.Register(registry);
            registry.Add(new ScriptCommitTool(ProjectDir, new UnityScriptCompiler(Dispatcher)));
            Markers = new MarkerLedger(Path.Combine(ProjectDir, "Library", "Codiva", "markers.json"));
            if (Markers.Problem != null) Debug.LogWarning("codiva: " + Markers.Problem);
            Codiva.Ops.Markers.Register(registry, Markers);
            MarkerOverlay.Attach(Markers);
            foreach (var module in new[] { "core", "scene", "assets", "editor", "scripts", "markers" }) registry.Enable(module);
            Tools = registry;
            Approvals = new AutoApproveChoices(Path.Combine(ProjectDir, "Library", "Codiva", "auto-approve.json"));
            if (Approvals.Problem != null) Debug.LogWarning("codiva: " + Approvals.Problem);
            Console.SetIgnore(EditorPrefs.GetString(ConsoleIgnorePref, "").Split('\n'));
            Turns = new TurnScope(Client.Store, new UnityUndo(), new UnityAssetRefresh(), new OpsToolEffects(registry), TurnScope.InPlaceIn(ProjectDir), Client.Watch);
            // The same token and port after a domain reload (SessionState lives as long as the
            // Editor): the MCP config of the sessions created before it still reaches the server.
            Ops = new McpServer(registry, runner, SessionState.GetString(OpsTokenKey, null));
            ToolImages = new ToolImageCache(Path.Combine(ProjectDir, "Library", "Codiva", "ToolImages"));
            ToolImages.Prune(System.DateTime.UtcNow);
            Ops.Called += ToolImages.Keep;
            Ops.Start(SessionState.GetInt(OpsPortKey, 0));
            SessionState.SetString(OpsTokenKey, Ops.Token);
            SessionState.SetInt(OpsPortKey, Ops.Port);

            Application.logMessageReceivedThreaded += OnLog;
            AssemblyReloadEvents.beforeAssemblyReload += Shutdown;
            EditorApplication.quitting += Shutdown;
        }

        static void PumpSends() => Sends?.Pump();

        static void OnLog(string message, string stackTrace, LogType type) => Console.Add(message, stackTrace, (LogKind)(int)type);

        static void Shutdown()
        {
            Application.logMessageReceivedThreaded -= OnLog;
            EditorApplication.update -= PumpSends;
            MarkerOverlay.Detach();
            // An open turn lets auto refresh go and collapses its Undo step before the reload.
            Turns?.Dispose();
            Turns = null;
            Client?.Dispose();
            Ops?.Dispose();
            Dispatcher?.Dispose();
            Client = null;
            Ops = null;
        }
    }

    /// Whether Unity compiles scripts now.
    sealed class UnityCompileState : ICompileState
    {
        public bool IsCompiling => EditorApplication.isCompiling;
    }
}
