// uLoop (uLoopMCP, now "Unity CLI Loop", github.com/hatayama/unity-cli-loop): a Unity package
// with a command-line tool, `uloop`, that the agent runs through its Bash tool to compile the
// project, read the console, run the tests, and more (README.md's "uLoop facts" say where each
// fact below comes from). Here: whether the project has it (the package in
// `Packages/manifest.json` or `Packages/packages-lock.json`, read through IFileReader) and the
// CLI is on PATH (through IFileProbe); the allowlist preset — off by default, and when the user
// turns it on exactly four Claude Code rules, one per command that only reads or compiles
// (`Bash(uloop compile:*)`, `get-logs`, `run-tests`, `list`), never a broad `Bash(uloop *)`, which
// was measured to let `uloop execute-dynamic-code` through (docs/protocol/claude.md says what
// the four were measured to allow and to ask); the steering lines a panel session gets when uLoop
// is there; and the install, run only on a click (UloopInstall).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Protocol;

namespace Codiva.Unity
{
    /// Whether a file exists (the Editor's looks at the disk).
    public interface IFileProbe
    {
        bool IsFile(string path);
    }

    /// What the panel knows of uLoop in a project.
    public sealed class UloopPresence
    {
        /// The package is a dependency of the project (manifest or lock file).
        public bool Package;
        /// The `uloop` CLI's path on PATH, or null.
        public string Cli;
        /// Both: the agent can run `uloop` against this project.
        public bool Usable => Package && Cli != null;
    }

    public static class Uloop
    {
        /// The Unity package's name (its `package.json`'s `name`).
        public const string PackageName = "io.github.hatayama.uloopmcp";
        /// The git URL upstream's README gives for *Add package from git URL*.
        public const string GitUrl = "https://github.com/hatayama/unity-cli-loop.git?path=/Packages/src";
        /// The CLI's npm package and the command it installs.
        public const string NpmPackage = "uloop-cli";
        public const string Cli = "uloop";

        /// The commands the preset lets run without asking: they compile or read, and change no
        /// asset (run-tests refuses to run with unsaved scenes unless `--save-before-run true`).
        public static readonly IReadOnlyList<string> PresetCommands = new[] { "compile", "get-logs", "run-tests", "list" };

        /// The preset's Claude Code allow rules, exactly: a prefix rule per command.
        public static IReadOnlyList<string> PresetRules => PresetCommands.Select(c => "Bash(" + Cli + " " + c + ":*)").ToList();

        /// Whether the project at `projectDir` depends on the package: `Packages/manifest.json`'s
        /// `dependencies`, or `Packages/packages-lock.json`'s (which also lists an embedded
        /// package). A missing or broken file says no.
        public static bool PackageInProject(IFileReader files, string projectDir)
        {
            if (files == null || string.IsNullOrEmpty(projectDir)) return false;
            foreach (var name in new[] { "manifest.json", "packages-lock.json" })
                if (Dependencies(files.ReadText(Path.Combine(projectDir, "Packages", name)))?.ContainsKey(PackageName) == true)
                    return true;
            return false;
        }

        static Dictionary<string, object> Dependencies(string text)
        {
            if (string.IsNullOrEmpty(text)) return null;
            try { return JsonRead.Get(JsonText.Parse(text), "dependencies") as Dictionary<string, object>; }
            catch (JsonException) { return null; }
        }

        /// The CLI on `path` (the PATH variable's value, `separator` between folders): the first
        /// folder holding `uloop` (on Windows, where npm installs `uloop.cmd`, `windows` looks for
        /// that and `uloop.exe`). Relative folders are skipped. Null when none has it.
        public static string FindCli(string path, IFileProbe probe, bool windows = false) =>
            probe == null ? null : ChildProcess.OnPath(path, windows ? new[] { Cli + ".cmd", Cli + ".exe" } : new[] { Cli }, probe.IsFile, windows);

        public static UloopPresence Detect(IFileReader files, IFileProbe probe, string projectDir, string path, bool windows = false) =>
            new UloopPresence { Package = PackageInProject(files, projectDir), Cli = FindCli(path, probe, windows) };

        /// What a panel session is told when uLoop is usable (English; ours). With the preset on,
        /// the four commands run without asking and everything else asks; with it off, each asks.
        public static string Steering(bool preset)
        {
            var lines = new List<string>
            {
                "uLoop (Unity CLI Loop) is installed in this Unity project: the `uloop` command talks to the open Unity Editor. "
                    + "Use `uloop compile` to compile and see errors, `uloop get-logs` (e.g. `--log-type Error --max-count 20`) to read the console, "
                    + "`uloop run-tests` (`--test-mode EditMode|PlayMode --filter-type all|exact|regex|assembly --filter-value …`) to run tests, and `uloop list` to list its tools.",
            };
            lines.Add(preset
                ? "These four run without asking when run as a single command each (" + string.Join(", ", PresetCommands.Select(c => "`uloop " + c + "`")) + " with options). "
                    + "Any other uloop command (execute-dynamic-code among them) asks the user first, and so does a command line that chains, substitutes or pipes into another command that changes anything: run each uloop command on its own."
                : "Each uloop command asks the user first.");
            return string.Join("\n", lines);
        }

        /// The settings' line of what the project has (and of an install under way or failed).
        public static string StatusWords(UloopPresence presence, InstallState install, Language language)
        {
            if (install == InstallState.Running) return Strings.Get(Str.UloopInstalling, language);
            if (install == InstallState.Failed) return Strings.Get(Str.UloopInstallFailed, language);
            if (presence == null || !presence.Package) return Strings.Get(Str.UloopNoPackage, language);
            if (presence.Cli == null) return Strings.Get(Str.UloopNoCli, language);
            return Strings.Get(Str.UloopReady, language);
        }

        /// The preset's toggle and, under it, the exact rules it adds.
        public static string PresetWords(Language language) => Strings.Get(Str.UloopPreset, language);
        public static string PresetRulesWords(Language language) => Strings.Format(Str.UloopPresetRules, language, string.Join("\n", PresetRules));

        /// Whether the install button is offered: while something is missing and nothing runs.
        public static bool OffersInstall(UloopPresence presence, InstallState install) =>
            install != InstallState.Running && (presence == null || !presence.Usable);

        /// `create` with the preset's rules (only when `preset` is on and uLoop is usable; added
        /// to what it allows already, nothing else) and the steering lines after what it already
        /// appends (when uLoop is usable). DisallowedTools is left as it is.
        public static CreateParams Apply(CreateParams create, UloopPresence presence, bool preset)
        {
            if (presence == null || !presence.Usable) return create;
            if (preset)
            {
                var allowed = create.AllowedTools ?? new List<string>();
                foreach (var rule in PresetRules)
                    if (!allowed.Contains(rule)) allowed.Add(rule);
                create.AllowedTools = allowed;
            }
            return create.AppendInstructions(Steering(preset));
        }
    }
}
