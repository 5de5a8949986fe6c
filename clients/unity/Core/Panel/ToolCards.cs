// A tool call as the panel's card shows it: its name (an MCP tool as `server: tool`), one line
// saying what it works on, its state, how long it took, and for an edit the lines it changes.
// All text here is plain; the card's `Rich` members are what a rich-text label takes (built
// through RichText, the escape chokepoint).
using System;
using System.Collections.Generic;
using Codiva.Json;
using Codiva.Protocol;

namespace Codiva.Panel
{
    /// What a tool call is about, in one line.
    public static class ToolDescriber
    {
        public const int MaxLine = 120;

        /// The tool's name for people: an MCP tool (`mcp__unity-ops__ping`) is `unity-ops: ping`;
        /// else the title codiva gives (`Bash`, `Edit`), else the agent's own name.
        public static string Title(string name, string title)
        {
            if (name != null && name.StartsWith("mcp__", StringComparison.Ordinal))
            {
                var rest = name.Substring(5);
                var split = rest.IndexOf("__", StringComparison.Ordinal);
                if (split > 0 && split + 2 < rest.Length) return Words.OneLine(rest.Substring(0, split) + ": " + rest.Substring(split + 2), 80);
            }
            return Words.OneLine(string.IsNullOrEmpty(title) ? name : title, 80);
        }

        /// One line: codiva's `summary` (the provider's: file name, command, pattern, …) when it
        /// gives one, else the same read from the tool's input for the tools the panel knows
        /// (a permission request carries no summary).
        public static string Line(string name, string summary, object input)
        {
            if (!string.IsNullOrWhiteSpace(summary)) return Words.OneLine(summary, MaxLine);
            return Words.OneLine(FromInput(name, input), MaxLine);
        }

        static string FromInput(string name, object input)
        {
            switch (name)
            {
                case "Bash":
                case "PowerShell":
                    return JsonRead.Str(input, "command");
                case "Read":
                case "Write":
                case "Edit":
                case "MultiEdit":
                    return FileName(JsonRead.Str(input, "file_path"));
                case "NotebookEdit":
                    return FileName(JsonRead.Str(input, "notebook_path"));
                case "Grep":
                case "Glob":
                    return JsonRead.Str(input, "pattern");
                case "WebFetch":
                    return Host(JsonRead.Str(input, "url"));
                case "WebSearch":
                    return JsonRead.Str(input, "query");
                case "Task":
                case "Agent":
                    return JsonRead.Str(input, "description");
                case "TodoWrite":
                    var todos = JsonRead.Arr(input, "todos");
                    return todos == null ? null : todos.Count.ToString(System.Globalization.CultureInfo.InvariantCulture);
            }
            // Another tool (an MCP tool): its first text member.
            var obj = JsonRead.Obj(input);
            if (obj == null) return null;
            foreach (var pair in obj)
                if (pair.Value is string text && text.Length > 0) return text;
            return null;
        }

        /// The last part of a path (either separator).
        public static string FileName(string path)
        {
            if (string.IsNullOrEmpty(path)) return path;
            var trimmed = path.TrimEnd('/', '\\');
            var at = trimmed.LastIndexOfAny(new[] { '/', '\\' });
            return at < 0 ? trimmed : trimmed.Substring(at + 1);
        }

        static string Host(string url)
        {
            Uri uri;
            return url != null && Uri.TryCreate(url, UriKind.Absolute, out uri) && uri.Host.Length > 0 ? uri.Host : url;
        }
    }

    public enum DiffKind { Same, Added, Removed, Skipped }

    public sealed class DiffLine
    {
        public DiffKind Kind;
        /// The line (plain text); for `Skipped`, how many lines are left out.
        public string Text;
        public int Count;
    }

    /// A line diff of an edit (the tool's old and new text), for the card: changed lines with
    /// `Context` lines around them, the rest counted as skipped.
    public static class LineDiff
    {
        public const int Context = 2;
        /// Lines shown at most; the rest are one `Skipped` line.
        public const int MaxLines = 200;
        /// Above this many line pairs the diff is not searched: the old lines go, the new come.
        const long MaxCells = 4000000;

        public static List<DiffLine> Of(string oldText, string newText)
        {
            var a = Lines(oldText);
            var b = Lines(newText);
            var all = Edit(a, b);
            var keep = new bool[all.Count];
            for (var i = 0; i < all.Count; i++)
            {
                if (all[i].Kind == DiffKind.Same) continue;
                for (var j = Math.Max(0, i - Context); j <= Math.Min(all.Count - 1, i + Context); j++) keep[j] = true;
            }
            var shown = new List<DiffLine>();
            var skipped = 0;
            var total = 0;
            for (var i = 0; i < all.Count; i++)
            {
                if (!keep[i]) { skipped++; continue; }
                if (skipped > 0) { shown.Add(new DiffLine { Kind = DiffKind.Skipped, Count = skipped }); skipped = 0; }
                if (total == MaxLines)
                {
                    var rest = 0;
                    for (var j = i; j < all.Count; j++) if (keep[j]) rest++;
                    shown.Add(new DiffLine { Kind = DiffKind.Skipped, Count = rest });
                    return shown;
                }
                shown.Add(all[i]);
                total++;
            }
            if (skipped > 0 && shown.Count > 0) shown.Add(new DiffLine { Kind = DiffKind.Skipped, Count = skipped });
            return shown;
        }

        static string[] Lines(string text)
        {
            if (string.IsNullOrEmpty(text)) return new string[0];
            var lines = text.Replace("\r\n", "\n").Split('\n');
            if (lines.Length > 0 && lines[lines.Length - 1].Length == 0) Array.Resize(ref lines, lines.Length - 1);
            return lines;
        }

        /// The whole edit script by a longest common subsequence of lines.
        static List<DiffLine> Edit(string[] a, string[] b)
        {
            var script = new List<DiffLine>();
            // Common ends first (an edit usually changes a few lines of many).
            var head = 0;
            while (head < a.Length && head < b.Length && a[head] == b[head]) head++;
            var tail = 0;
            while (tail < a.Length - head && tail < b.Length - head && a[a.Length - 1 - tail] == b[b.Length - 1 - tail]) tail++;
            for (var i = 0; i < head; i++) script.Add(new DiffLine { Kind = DiffKind.Same, Text = a[i] });
            int n = a.Length - head - tail, m = b.Length - head - tail;
            if ((long)n * m > MaxCells)
            {
                for (var i = 0; i < n; i++) script.Add(new DiffLine { Kind = DiffKind.Removed, Text = a[head + i] });
                for (var j = 0; j < m; j++) script.Add(new DiffLine { Kind = DiffKind.Added, Text = b[head + j] });
            }
            else
            {
                var lcs = new int[n + 1, m + 1];
                for (var i = n - 1; i >= 0; i--)
                    for (var j = m - 1; j >= 0; j--)
                        lcs[i, j] = a[head + i] == b[head + j] ? lcs[i + 1, j + 1] + 1 : Math.Max(lcs[i + 1, j], lcs[i, j + 1]);
                int x = 0, y = 0;
                while (x < n || y < m)
                {
                    if (x < n && y < m && a[head + x] == b[head + y]) { script.Add(new DiffLine { Kind = DiffKind.Same, Text = a[head + x] }); x++; y++; }
                    // Removed lines before the added ones that replace them.
                    else if (x < n && (y == m || lcs[x + 1, y] >= lcs[x, y + 1])) { script.Add(new DiffLine { Kind = DiffKind.Removed, Text = a[head + x] }); x++; }
                    else { script.Add(new DiffLine { Kind = DiffKind.Added, Text = b[head + y] }); y++; }
                }
            }
            for (var i = a.Length - tail; i < a.Length; i++) script.Add(new DiffLine { Kind = DiffKind.Same, Text = a[i] });
            return script;
        }

        public const string AddedColor = "#7EC699";
        public const string RemovedColor = "#E06C75";

        /// The diff as rich text: `+`/`-` lines coloured, every line's text escaped.
        public static string Rich(IList<DiffLine> lines, Language language)
        {
            var text = new System.Text.StringBuilder();
            foreach (var line in lines)
            {
                if (text.Length > 0) text.Append('\n');
                switch (line.Kind)
                {
                    case DiffKind.Added: text.Append("<color=" + AddedColor + ">+ ").Append(RichText.Escape(line.Text)).Append("</color>"); break;
                    case DiffKind.Removed: text.Append("<color=" + RemovedColor + ">- ").Append(RichText.Escape(line.Text)).Append("</color>"); break;
                    case DiffKind.Skipped: text.Append(RichText.Escape(Strings.Format(Str.DiffMoreLines, language, line.Count))); break;
                    default: text.Append("  ").Append(RichText.Escape(line.Text)); break;
                }
            }
            return text.ToString();
        }
    }

    /// One tool call's card.
    public sealed class ToolCard
    {
        public long EntryId;
        public string ToolUseId;
        /// The agent's own name of the tool (`Bash`, `mcp__unity-ops__ping`).
        public string Name;
        /// The protocol's tool kind (`read`, `edit`, `execute`, …; a later version's word kept).
        public string Kind;
        /// The name for people (an MCP tool as `server: tool`).
        public string Title;
        /// What it works on, one line.
        public string Line;
        /// `running`, `succeeded`, `failed`, `denied`, `unreported` (a later version's word kept as it is).
        public string State;
        public long? DurationMs;
        /// The changed lines of an edit (empty for other tools).
        public readonly List<DiffLine> Diff = new List<DiffLine>();
        /// The path the diff is of.
        public string DiffPath;
        /// The command's output or the tool's result (plain, capped).
        public string Output;
        /// The tool's input as the agent sent it, as JSON (plain, capped): what an expanded card shows.
        public string Input;

        public bool Completed => State == Known.ToolStatus.Succeeded;
        public bool Running => State == Known.ToolStatus.Running;

        /// The state in words (`done`, `failed`, …); an unknown state as it is.
        public string StateWords(Language language)
        {
            switch (State)
            {
                case Known.ToolStatus.Running: return Strings.Get(Str.ToolRunning, language);
                case Known.ToolStatus.Succeeded: return Strings.Get(Str.ToolSucceeded, language);
                case Known.ToolStatus.Failed: return Strings.Get(Str.ToolFailed, language);
                case Known.ToolStatus.Denied: return Strings.Get(Str.ToolDenied, language);
                case Known.ToolStatus.Unreported: return Strings.Get(Str.ToolUnreported, language);
                default: return Words.OneLine(State, 40);
            }
        }

        /// The duration in words, or "" while none is known.
        public string DurationWords(Language language) => DurationMs.HasValue ? Words.Duration(DurationMs.Value, language) : "";

        /// The card's header line as rich text: `Title  line  · done · 0.4s`.
        public string RichHeader(Language language)
        {
            var header = "<b>" + RichText.Escape(Title) + "</b>";
            if (Line.Length > 0) header += "  " + RichText.Escape(Line);
            header += RichText.Escape(" · " + StateWords(language));
            if (DurationMs.HasValue) header += RichText.Escape(" · " + DurationWords(language));
            return header;
        }

        public const int MaxOutput = 8000;

        public static ToolCard Of(LogEntry entry)
        {
            var card = new ToolCard
            {
                EntryId = entry.Id,
                ToolUseId = entry.ToolUseId,
                Name = entry.Name,
                Kind = entry.ToolKind ?? Known.ToolKind.Other,
                Title = ToolDescriber.Title(entry.Name, entry.Title),
                Line = ToolDescriber.Line(entry.Name, entry.Summary, entry.Input),
                State = entry.Status ?? Known.ToolStatus.Running,
                DurationMs = entry.DurationMs,
            };
            var output = new System.Text.StringBuilder();
            if (entry.Content != null)
            {
                foreach (var item in entry.Content)
                {
                    if (item == null) continue;
                    if (item.Type == Known.ToolContent.Diff && card.DiffPath == null)
                    {
                        card.DiffPath = item.Path;
                        card.Diff.AddRange(LineDiff.Of(item.Old, item.New));
                    }
                    else if (item.Type == Known.ToolContent.Terminal && !string.IsNullOrEmpty(item.Output)) output.Append(item.Output).Append('\n');
                    else if (item.Type == Known.ToolContent.Text && !string.IsNullOrEmpty(item.Text)) output.Append(item.Text).Append('\n');
                }
            }
            if (output.Length == 0 && !string.IsNullOrEmpty(entry.Result)) output.Append(entry.Result);
            card.Output = Words.Cut(output.ToString().TrimEnd('\n'), MaxOutput);
            card.Input = entry.Input == null ? "" : Words.Cut(JsonText.Write(entry.Input), MaxOutput);
            return card;
        }
    }
}
