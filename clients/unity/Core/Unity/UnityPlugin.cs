// The Unity official Claude Code plugin (`unity@unity-agent-plugin`): whether it is installed,
// its one-click install, and the steering lines a new panel session gets when it is. codiva's
// protocol does not carry the agent's init `plugins[]`, so detection reads the static files
// Claude Code keeps for installed plugins (the reference, §2.8): `~/.claude/plugins/
// installed_plugins.json` (version 2: `plugins` maps `name@marketplace` to its installs) and
// `~/.claude/settings.json`'s `enabledPlugins` — installed means listed in the first with at least
// one install and `true` in the second. Files are read through IFileReader (the Editor's reads the
// disk). The install is exactly the reference's two commands, as argument vectors (never a shell
// string), run through ICommandRunner one after the other (InstallRun) only when the user clicks
// (PluginInstall.Click); nothing here runs a command on its own.
using System;
using System.Collections.Generic;
using System.IO;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Protocol;

namespace Codiva.Unity
{
    /// Reads a text file; null when it is absent or cannot be read.
    public interface IFileReader
    {
        string ReadText(string path);
    }

    public static class UnityPlugin
    {
        public const string Id = "unity@unity-agent-plugin";
        public const string Marketplace = "Unity-Technologies/unity-agent-plugin";

        /// The install: `claude plugin marketplace add Unity-Technologies/unity-agent-plugin` then
        /// `claude plugin install unity@unity-agent-plugin --scope user --yes` (both idempotent).
        public static IReadOnlyList<IReadOnlyList<string>> InstallCommands(string claude = "claude") => new IReadOnlyList<string>[]
        {
            new[] { claude, "plugin", "marketplace", "add", Marketplace },
            new[] { claude, "plugin", "install", Id, "--scope", "user", "--yes" },
        };

        /// Claude Code's folder of the user (`~/.claude`).
        public static string ClaudeDir(string home) => Path.Combine(home ?? "", ".claude");

        /// Whether the plugin is installed and enabled for the user whose Claude Code folder is
        /// `claudeDir`. A file that is missing or not JSON says no.
        public static bool Installed(IFileReader files, string claudeDir)
        {
            if (files == null || string.IsNullOrEmpty(claudeDir)) return false;
            var installed = Parse(files.ReadText(Path.Combine(claudeDir, "plugins", "installed_plugins.json")));
            if (!(JsonRead.Get(installed, "plugins") is Dictionary<string, object> plugins)) return false;
            if (!plugins.TryGetValue(Id, out var installs) || !(installs is List<object> list) || list.Count == 0) return false;
            var settings = Parse(files.ReadText(Path.Combine(claudeDir, "settings.json")));
            return JsonRead.Get(settings, "enabledPlugins") is Dictionary<string, object> enabled
                && enabled.TryGetValue(Id, out var on) && on is bool b && b;
        }

        static object Parse(string text)
        {
            if (string.IsNullOrEmpty(text)) return null;
            try { return JsonText.Parse(text); }
            catch (JsonException) { return null; }
        }

        /// What a new panel session is told when the plugin is installed (English; ours).
        public const string Steering = "The Unity official Claude Code plugin (unity@unity-agent-plugin) is installed: prefer its Unity skills and tools for Unity work where they fit, and keep to the project's own instructions where they differ.";

        /// The settings' line: the install under way or failed, else whether it is installed.
        public static string StatusWords(bool installed, InstallState install, Language language) => Strings.Get(
            install == InstallState.Running ? Str.PluginInstalling
            : install == InstallState.Failed ? Str.PluginInstallFailed
            : installed ? Str.PluginInstalled : Str.PluginNotInstalled, language);

        /// `create` with the steering lines after what it already appends, when installed.
        public static CreateParams Apply(CreateParams create, bool installed) => installed ? create.AppendInstructions(Steering) : create;
    }

    /// The one-click install: Click runs the two commands in order (InstallRun: the second only
    /// when the first succeeded) and keeps what they printed for the panel to show. Nothing runs
    /// before a click, and a click while running does nothing.
    public sealed class PluginInstall
    {
        readonly InstallRun run;
        readonly IReadOnlyList<IReadOnlyList<string>> commands;

        public PluginInstall(ICommandRunner runner, string claude = "claude")
        {
            run = new InstallRun(runner);
            commands = UnityPlugin.InstallCommands(claude);
        }

        public InstallState State => run.State;

        /// Each command as run (`$ claude plugin …`), what it printed, how it failed.
        public string Output(Language language) => run.Output(language);

        /// Called (from the runner's thread) when the state or the output changes.
        public event Action Changed { add { run.Changed += value; } remove { run.Changed -= value; } }

        public void Click()
        {
            if (run.Begin()) run.Run(commands);
        }
    }
}
