// uLoop's install, as upstream's README documents it, run only when the user clicks: the Unity
// package added to the project's `Packages/manifest.json` as *Add package from git URL* records it
// (`"io.github.hatayama.uloopmcp": "https://github.com/hatayama/unity-cli-loop.git?path=/Packages/src"`,
// inserted into `dependencies` with the rest of the file's text kept as it was, written through
// IFileWriter — the Editor's is AtomicFile), then the CLI with `npm install -g uloop-cli` (an
// argument vector run through ICommandRunner, no shell; InstallRun). Each step is done only when
// detection says it is missing; the CLI's install only after the manifest step went well; what
// happened is kept for the panel to show. Upstream's own button installs `uloop-cli@<the
// package's version>`: the unversioned name is what its README gives for a terminal, and the
// package is taken at the git URL's head, so the two are both the newest.
using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using Codiva.Json;
using Codiva.Panel;

namespace Codiva.Unity
{
    /// Writes a text file whole (the Editor's is AtomicFile: all of it or nothing).
    public interface IFileWriter
    {
        void WriteText(string path, string text);
    }

    public static class UloopManifest
    {
        public static string Path(string projectDir) => System.IO.Path.Combine(projectDir ?? "", "Packages", "manifest.json");

        /// The manifest's text with the package added at the start of `dependencies`, everything
        /// else as it was; null with `problem` when the text is not a manifest (not JSON, no
        /// `dependencies` object) or already has the package.
        public static string AddPackage(string manifest, out string problem)
        {
            problem = null;
            if (string.IsNullOrEmpty(manifest)) { problem = "Packages/manifest.json is missing or empty"; return null; }
            Dictionary<string, object> deps;
            try { deps = JsonRead.Get(JsonText.Parse(manifest), "dependencies") as Dictionary<string, object>; }
            catch (JsonException e) { problem = "Packages/manifest.json is not JSON: " + e.Message; return null; }
            if (deps == null) { problem = "Packages/manifest.json has no \"dependencies\" object"; return null; }
            if (deps.ContainsKey(Uloop.PackageName)) { problem = Uloop.PackageName + " is already in Packages/manifest.json"; return null; }
            var open = DependenciesBrace(manifest);
            if (open < 0) { problem = "Packages/manifest.json's \"dependencies\" was not found"; return null; }
            var rest = manifest.Substring(open + 1);
            var empty = rest.TrimStart().StartsWith("}", StringComparison.Ordinal);
            var indent = Indent(manifest, open);
            var newline = manifest.Contains("\r\n") ? "\r\n" : "\n";
            var entry = newline + indent + Quote(Uloop.PackageName) + ": " + Quote(Uloop.GitUrl) + (empty ? "" : ",");
            var result = manifest.Substring(0, open + 1) + entry + (empty ? newline + Outdent(manifest, open) + rest.TrimStart() : rest);
            // What was written must read back as the same manifest with the package added.
            var check = JsonRead.Get(JsonText.Parse(result), "dependencies") as Dictionary<string, object>;
            if (check == null || check.Count != deps.Count + 1 || !(check.TryGetValue(Uloop.PackageName, out var url) && (url as string) == Uloop.GitUrl))
            {
                problem = "Packages/manifest.json could not be edited";
                return null;
            }
            return result;
        }

        /// The index of the `{` that opens the top-level `dependencies` object, or -1.
        static int DependenciesBrace(string text)
        {
            var depth = 0;
            for (var i = 0; i < text.Length; i++)
            {
                var c = text[i];
                if (c == '"')
                {
                    var end = StringEnd(text, i);
                    if (end < 0) return -1;
                    if (depth == 1 && text.Substring(i + 1, end - i - 1) == "dependencies")
                    {
                        var j = end + 1;
                        while (j < text.Length && char.IsWhiteSpace(text[j])) j++;
                        if (j < text.Length && text[j] == ':')
                        {
                            j++;
                            while (j < text.Length && char.IsWhiteSpace(text[j])) j++;
                            if (j < text.Length && text[j] == '{') return j;
                        }
                    }
                    i = end;
                }
                else if (c == '{' || c == '[') depth++;
                else if (c == '}' || c == ']') depth--;
            }
            return -1;
        }

        /// The index of the quote that ends the string starting at `start`, or -1.
        static int StringEnd(string text, int start)
        {
            for (var i = start + 1; i < text.Length; i++)
            {
                if (text[i] == '\\') { i++; continue; }
                if (text[i] == '"') return i;
            }
            return -1;
        }

        // The indentation of the dependencies' first entry (or, in an empty object, the key's
        // line's and two spaces more).
        static string Indent(string text, int open)
        {
            var i = open + 1;
            while (i < text.Length && (text[i] == ' ' || text[i] == '\t')) i++;
            if (i < text.Length && (text[i] == '\n' || text[i] == '\r'))
            {
                while (i < text.Length && (text[i] == '\n' || text[i] == '\r')) i++;
                var start = i;
                while (i < text.Length && (text[i] == ' ' || text[i] == '\t')) i++;
                if (i < text.Length && text[i] == '"') return text.Substring(start, i - start);
            }
            return Outdent(text, open) + "  ";
        }

        // The indentation of the line holding `open`.
        static string Outdent(string text, int open)
        {
            var start = text.LastIndexOf('\n', open) + 1;
            var i = start;
            while (i < open && (text[i] == ' ' || text[i] == '\t')) i++;
            return text.Substring(start, i - start);
        }

        static string Quote(string s) => JsonText.Write(s);
    }

    /// The one-click install (see the file's head). Nothing runs or is written before a click;
    /// a click while running does nothing.
    public sealed class UloopInstall
    {
        readonly InstallRun run;
        readonly IFileReader files;
        readonly IFileWriter writer;
        readonly Func<UloopPresence> detect;
        readonly string projectDir;
        readonly string npm;
        readonly object gate = new object();

        /// `detect` says, at each click, what the project has; `npm` is the program run (the
        /// Editor's is `npm.cmd` on Windows).
        public UloopInstall(ICommandRunner runner, IFileReader files, IFileWriter writer, string projectDir, Func<UloopPresence> detect, string npm = "npm")
        {
            run = new InstallRun(runner);
            this.files = files;
            this.writer = writer;
            this.projectDir = projectDir;
            this.detect = detect;
            this.npm = npm;
        }

        /// The CLI's install: `npm install -g uloop-cli`.
        public static IReadOnlyList<string> CliCommand(string npm = "npm") => new[] { npm, "install", "-g", Uloop.NpmPackage };

        public InstallState State => run.State;

        /// What each step did (`$ npm install -g uloop-cli` and what it printed; the manifest's line).
        public string Output(Language language) => run.Output(language);

        /// Called (from the runner's thread) when the state or the output changes.
        public event Action Changed { add { run.Changed += value; } remove { run.Changed -= value; } }

        /// True once, right after a click that wrote the manifest has ended (the Editor then asks
        /// Package Manager to resolve): reading it says so only the first time.
        public bool ResolvePackages
        {
            get { lock (gate) { var r = resolve && State != InstallState.Running; if (r) resolve = false; return r; } }
        }
        bool resolve;

        public void Click()
        {
            if (!run.Begin()) return;
            var presence = detect?.Invoke() ?? new UloopPresence();
            if (!presence.Package && !AddPackage()) { run.Finish(InstallState.Failed); return; }
            if (presence.Cli != null) { run.Finish(InstallState.Done); return; }
            run.Run(new[] { CliCommand(npm) });
        }

        bool AddPackage()
        {
            var path = UloopManifest.Path(projectDir);
            var text = UloopManifest.AddPackage(files?.ReadText(path), out var problem);
            if (text == null) { run.Note(problem); return false; }
            try { writer.WriteText(path, text); }
            catch (Exception e) when (e is IOException || e is UnauthorizedAccessException)
            {
                run.Note("Packages/manifest.json was not written: " + e.Message);
                return false;
            }
            lock (gate) resolve = true;
            run.Note("+ Packages/manifest.json: " + JsonText.Write(Uloop.PackageName) + ": " + JsonText.Write(Uloop.GitUrl));
            return true;
        }
    }
}
