// The script validation gate. A script the agent writes straight into `Assets/` is compiled by
// Unity at its next refresh, and one that does not compile stops every script of the project
// (and this panel's own assembly reloads with it). So for the panel's sessions the agent may not
// write `Assets/**/*.cs` or `Assets/**/*.asmdef` at all — codiva passes `DisallowedTools` to the
// agent as its tool rules (Claude Code: `--disallowedTools=Edit(…)`; what the CLI does with them is
// measured in docs/protocol/claude.md, "Tool rules") — and writes them instead under
// `CodivaStaging~/`, the same path below it (`CodivaStaging~/Assets/Scripts/Foo.cs`), then calls
// `scripts_commit`: the staged scripts are compiled with the project's (the compiler is an
// interface: Unity's compilation API in the Editor, Mono's `mcs` in the tests), and only a clean
// compile moves them into `Assets/`; otherwise nothing moves and the agent gets the errors.
//
// The staging folder ends with `~`, so Unity never imports it even when a user moves it under
// `Assets/` (Special folder names, "Hidden Assets":
// https://docs.unity3d.com/2022.3/Documentation/Manual/SpecialFolders.html).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using Codiva.Json;

namespace Codiva.Ops
{
    /// One staged script and where it goes.
    public sealed class StagedScript
    {
        /// Absolute path of the staged file.
        public string StagedPath;
        /// Project-relative path it is committed to (`Assets/…`, `/`-separated).
        public string Target;
        /// Absolute path of the target.
        public string TargetPath;
        public bool IsAssemblyDefinition => Target.EndsWith(".asmdef", StringComparison.Ordinal);
    }

    /// One message of a compile (or of the gate's own checks).
    public sealed class CompileMessage
    {
        /// The file as the compiler names it (a staged file's absolute path is shown as its target).
        public string File;
        public int Line;
        public int Column;
        public bool IsError;
        /// `CS1002: ; expected`, as the compiler words it.
        public string Text;
    }

    /// Compiles the project's scripts with the staged ones in place of the files they replace (and
    /// next to them otherwise). Called off Unity's main thread; it returns within its own time limit
    /// (a compile that does not finish is an error message, not a hang).
    public interface IScriptCompiler
    {
        IList<CompileMessage> Compile(string projectDir, IList<StagedScript> scripts);
    }

    public static class ScriptGate
    {
        /// The staging folder, in the project's directory.
        public const string StagingFolder = "CodivaStaging~";
        /// The Ops tool that commits what is staged.
        public const string CommitTool = "scripts_commit";
        public const int MaxFiles = 200;
        public const long MaxFileBytes = 1024 * 1024;
        /// Compiler messages passed on (the rest are counted).
        public const int MaxMessages = 40;

        /// The agent's tool rules that refuse writing scripts into `Assets/` (`session/create`'s
        /// `disallowed_tools`). Claude Code reads a path relative to its working directory — the
        /// panel's session runs in place in the project — and an `Edit(…)` rule covers every tool
        /// that writes files (Write, Edit, NotebookEdit); a `Write(…)` rule does nothing (measured:
        /// docs/protocol/claude.md, "Tool rules").
        public static readonly string[] DisallowedTools = { "Edit(Assets/**/*.cs)", "Edit(Assets/**/*.asmdef)" };

        /// What the agent is told (appended to its system prompt).
        public static string Instructions(string opsServerName) =>
            "This session runs in a Unity project. You cannot write C# scripts (*.cs) or assembly definitions (*.asmdef) " +
            "under Assets/ directly: such writes are refused. Write each one under " + StagingFolder + "/ at the same path " +
            "(for Assets/Scripts/Foo.cs write " + StagingFolder + "/Assets/Scripts/Foo.cs), then call the " +
            "mcp__" + opsServerName + "__" + CommitTool + " tool: it compiles the staged scripts with the project's and moves " +
            "them into Assets/ only when they compile; otherwise it returns the compiler's errors and moves nothing — fix the staged " +
            "files and call it again.";

        /// Whether a project-relative path is one the gate keeps the agent from writing.
        public static bool IsGated(string relativePath)
        {
            if (string.IsNullOrEmpty(relativePath)) return false;
            var path = relativePath.Replace('\\', '/');
            return path.StartsWith("Assets/", StringComparison.Ordinal)
                && (path.EndsWith(".cs", StringComparison.Ordinal) || path.EndsWith(".asmdef", StringComparison.Ordinal));
        }

        /// What is staged in `projectDir`, and what cannot be committed (a file that is not a
        /// script under `Assets/`, a link, a file too large, too many files).
        public static Staging Scan(string projectDir)
        {
            var staging = new Staging();
            var root = Path.Combine(projectDir, StagingFolder);
            if (!Directory.Exists(root)) return staging;
            if (IsLink(root)) { staging.Problems.Add(StagingFolder + " is a link; it must be a directory of the project"); return staging; }
            var pending = new Stack<string>();
            pending.Push(root);
            while (pending.Count > 0)
            {
                var dir = pending.Pop();
                foreach (var sub in Directory.GetDirectories(dir).OrderBy(d => d, StringComparer.Ordinal))
                {
                    if (IsLink(sub)) staging.Problems.Add(Relative(root, sub) + ": a link (not followed)");
                    else pending.Push(sub);
                }
                foreach (var file in Directory.GetFiles(dir).OrderBy(f => f, StringComparer.Ordinal))
                {
                    var target = Relative(root, file);
                    if (IsLink(file)) { staging.Problems.Add(target + ": a link (not followed)"); continue; }
                    if (!IsGated(target)) { staging.Problems.Add(target + ": not a script under Assets/ (only Assets/**/*.cs and *.asmdef are committed)"); continue; }
                    if (new FileInfo(file).Length > MaxFileBytes) { staging.Problems.Add(target + ": larger than " + MaxFileBytes / 1024 + " KB"); continue; }
                    staging.Scripts.Add(new StagedScript
                    {
                        StagedPath = file,
                        Target = target,
                        TargetPath = Path.Combine(projectDir, target.Replace('/', Path.DirectorySeparatorChar)),
                    });
                }
            }
            if (staging.Scripts.Count > MaxFiles) staging.Problems.Add(staging.Scripts.Count + " files staged; at most " + MaxFiles + " are committed at once");
            staging.Scripts.Sort((a, b) => string.CompareOrdinal(a.Target, b.Target));
            return staging;
        }

        /// The sources of a compile: the project's (`projectSources`, relative to `projectDir` or
        /// absolute) but those a staged script replaces, then the staged C# scripts.
        public static List<string> Sources(string projectDir, IEnumerable<string> projectSources, IList<StagedScript> staged)
        {
            var replaced = new HashSet<string>();
            foreach (var script in staged) replaced.Add(Path.GetFullPath(script.TargetPath));
            var sources = new List<string>();
            foreach (var source in projectSources)
                if (!replaced.Contains(Path.GetFullPath(Path.Combine(projectDir, source)))) sources.Add(source);
            foreach (var script in staged)
                if (!script.IsAssemblyDefinition) sources.Add(script.StagedPath);
            return sources;
        }

        /// An assembly definition's own check: a JSON object with a `name`.
        public static CompileMessage CheckAssemblyDefinition(StagedScript script)
        {
            string problem = null;
            try
            {
                var json = JsonRead.Obj(JsonText.Parse(File.ReadAllText(script.StagedPath, Encoding.UTF8)));
                if (json == null) problem = "an assembly definition is a JSON object";
                else if (string.IsNullOrEmpty(JsonRead.Str(json, "name"))) problem = "an assembly definition needs a \"name\"";
            }
            catch (Exception e) when (e is JsonException || e is IOException || e is InvalidOperationException || e is ArgumentException)
            {
                problem = "not valid JSON: " + e.Message;
            }
            return problem == null ? null : new CompileMessage { File = script.Target, IsError = true, Text = problem };
        }

        /// Moves each staged script onto its target (each written to a temporary file next to it and
        /// renamed over it), removes what is left of the staging folder, and says what changed.
        public static List<string> Move(string projectDir, IList<StagedScript> scripts)
        {
            var assets = Path.GetFullPath(Path.Combine(projectDir, "Assets"));
            var done = new List<string>();
            foreach (var script in scripts)
            {
                var full = Path.GetFullPath(script.TargetPath);
                if (!full.StartsWith(assets + Path.DirectorySeparatorChar, StringComparison.Ordinal))
                    throw new ToolError(script.Target + " is not inside Assets/");
                var dir = Path.GetDirectoryName(full);
                for (var d = dir; d.Length > assets.Length; d = Path.GetDirectoryName(d))
                    if (Directory.Exists(d) && IsLink(d)) throw new ToolError(script.Target + ": " + Relative(projectDir, d) + " is a link");
                Directory.CreateDirectory(dir);
                var existed = File.Exists(full);
                var temp = full + ".codiva-" + Guid.NewGuid().ToString("N").Substring(0, 8) + "~";
                File.Copy(script.StagedPath, temp, true);
                if (existed) File.Replace(temp, full, null);
                else File.Move(temp, full);
                File.Delete(script.StagedPath);
                done.Add(script.Target + (existed ? " (replaced)" : " (new)"));
            }
            RemoveEmptyDirectories(Path.Combine(projectDir, StagingFolder));
            return done;
        }

        /// The messages as the agent reads them: one line each, staged paths shown as their targets.
        public static string Format(IList<CompileMessage> messages, IList<StagedScript> scripts, string projectDir)
        {
            var text = new StringBuilder();
            var shown = 0;
            foreach (var message in messages)
            {
                if (shown == MaxMessages) { text.Append("… and ").Append(messages.Count - shown).Append(" more\n"); break; }
                var file = ShownPath(message.File, scripts, projectDir);
                text.Append(file);
                if (message.Line > 0) text.Append('(').Append(message.Line).Append(',').Append(message.Column).Append(')');
                text.Append(file.Length > 0 ? ": " : "").Append(message.IsError ? "error " : "warning ").Append(OneLine(message.Text)).Append('\n');
                shown++;
            }
            return text.ToString();
        }

        static string ShownPath(string file, IList<StagedScript> scripts, string projectDir)
        {
            if (string.IsNullOrEmpty(file)) return "";
            foreach (var script in scripts)
                if (SamePath(file, script.StagedPath) || file == script.Target) return script.Target;
            var full = Path.IsPathRooted(file) ? file : null;
            if (full != null && full.StartsWith(projectDir.TrimEnd('/') + "/", StringComparison.Ordinal))
                return full.Substring(projectDir.TrimEnd('/').Length + 1);
            return OneLine(file);
        }

        static bool SamePath(string a, string b)
        {
            try { return Path.GetFullPath(a) == Path.GetFullPath(b); }
            catch (Exception e) when (e is ArgumentException || e is NotSupportedException || e is PathTooLongException) { return false; }
        }

        static string OneLine(string text)
        {
            if (text == null) return "";
            var line = new StringBuilder(text.Length);
            foreach (var c in text) line.Append(char.IsControl(c) ? ' ' : c);
            return line.ToString().Trim();
        }

        static string Relative(string root, string path) => path.Substring(root.Length).TrimStart('/', '\\').Replace('\\', '/');

        static bool IsLink(string path) => (File.GetAttributes(path) & FileAttributes.ReparsePoint) != 0;

        static void RemoveEmptyDirectories(string dir)
        {
            if (!Directory.Exists(dir) || IsLink(dir)) return;
            foreach (var sub in Directory.GetDirectories(dir)) if (!IsLink(sub)) RemoveEmptyDirectories(sub);
            if (Directory.GetFileSystemEntries(dir).Length == 0) Directory.Delete(dir);
        }
    }

    /// What `ScriptGate.Scan` found.
    public sealed class Staging
    {
        public readonly List<StagedScript> Scripts = new List<StagedScript>();
        /// Why something staged cannot be committed; any of them refuses the whole commit.
        public readonly List<string> Problems = new List<string>();
    }

    /// `scripts_commit`: compiles what is staged and moves it into `Assets/` only when it compiles.
    /// It writes files outside Unity's Undo (`IChangesOutsideUndo`). Thread: any (the compiler is
    /// called off the main thread; Unity's posts its own work there).
    public sealed class ScriptCommitTool : ITool, IChangesOutsideUndo
    {
        readonly string projectDir;
        readonly IScriptCompiler compiler;
        /// The scripts moved into `Assets/` by each clean commit (any thread).
        public event Action<IList<string>> Committed;

        public ScriptCommitTool(string projectDir, IScriptCompiler compiler)
        {
            this.projectDir = Path.GetFullPath(projectDir);
            this.compiler = compiler;
        }

        public string Name => ScriptGate.CommitTool;
        public string Module => "scripts";
        public string Description =>
            "Compiles the C# scripts and assembly definitions staged under " + ScriptGate.StagingFolder + "/ (at their Assets/ path) with the project's, " +
            "and moves them into Assets/ only if everything compiles; otherwise returns the compiler's errors and moves nothing.";
        public Dictionary<string, object> InputSchema => Args.Schema();
        public ThreadAffinity Affinity => ThreadAffinity.Any;
        public bool Destructive => false;

        readonly object commitGate = new object();

        /// One commit at a time (the agent may call it twice at once).
        public ToolResult Call(Dictionary<string, object> arguments)
        {
            lock (commitGate) return Commit();
        }

        ToolResult Commit()
        {
            var staging = ScriptGate.Scan(projectDir);
            if (staging.Problems.Count > 0)
                return ToolResult.Text("refused: nothing was moved.\n" + string.Join("\n", staging.Problems), true);
            if (staging.Scripts.Count == 0)
                return ToolResult.Text("nothing is staged: write scripts under " + ScriptGate.StagingFolder + "/Assets/… first.", true);

            var messages = new List<CompileMessage>();
            foreach (var script in staging.Scripts.Where(s => s.IsAssemblyDefinition))
            {
                var problem = ScriptGate.CheckAssemblyDefinition(script);
                if (problem != null) messages.Add(problem);
            }
            if (messages.Count == 0) messages.AddRange(compiler.Compile(projectDir, staging.Scripts) ?? new List<CompileMessage>());
            var errors = messages.Count(m => m.IsError);
            if (errors > 0)
                return ToolResult.Text("compile failed (" + errors + (errors == 1 ? " error" : " errors") + "); nothing was moved into Assets/. " +
                    "Fix the staged files and call " + Name + " again.\n" + ScriptGate.Format(messages, staging.Scripts, projectDir), true);

            var moved = ScriptGate.Move(projectDir, staging.Scripts);
            Committed?.Invoke(moved);
            var text = new StringBuilder("compiled cleanly; moved into Assets/:\n");
            foreach (var line in moved) text.Append(line).Append('\n');
            if (messages.Count > 0) text.Append("warnings:\n").Append(ScriptGate.Format(messages, staging.Scripts, projectDir));
            text.Append("Unity imports them when the turn ends.");
            return ToolResult.Text(text.ToString());
        }
    }
}
