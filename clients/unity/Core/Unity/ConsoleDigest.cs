// The console's errors as a digest the user can attach: errors, exceptions and failed asserts
// (not logs or warnings), each distinct one once with how often it came (the same message from the
// same place is one line, `×12`), where it came from (the first `(at Assets/…:N)` of its stack, or
// the compiler's own `file(line,col)` in the message), oldest first, the newest `MaxShown` of them.
// Ignore patterns (the user's: `*` matches anything, case-insensitive, against the message's first
// line) leave out the noise of a project. Everything is one line and capped: Unity's messages are
// anyone's text (a package's, the agent's own scripts'), and this is model-visible.
//
// Fed from Unity's log callback (`Application.logMessageReceivedThreaded`: any thread).
using System;
using System.Collections.Generic;
using System.Text;
using System.Text.RegularExpressions;
using Codiva.Client;

namespace Codiva.Unity
{
    /// Unity's `LogType`, with its values (the Editor casts one to the other):
    /// https://docs.unity3d.com/2022.3/Documentation/ScriptReference/LogType.html
    public enum LogKind { Error = 0, Assert = 1, Warning = 2, Log = 3, Exception = 4 }

    public sealed class ConsoleDigest
    {
        public const string Kind = "console";
        /// Distinct errors kept (the oldest go first).
        public const int Capacity = 50;
        /// Distinct errors shown in the chip (the newest).
        public const int MaxShown = 10;
        public const int MaxLineChars = 200;
        static readonly Regex StackPlace = new Regex(@"\(at ([^()\r\n]{1,300}:\d{1,7})\)", RegexOptions.CultureInvariant, TimeSpan.FromMilliseconds(50));

        sealed class Entry
        {
            public string Key;
            public string Line;
            public string Place;
            public int Count;
        }

        readonly object gate = new object();
        readonly List<Entry> entries = new List<Entry>();
        readonly Dictionary<string, Entry> byKey = new Dictionary<string, Entry>();
        List<Regex> ignore = new List<Regex>();

        public ConsoleDigest(IEnumerable<string> ignorePatterns = null) { SetIgnore(ignorePatterns); }

        /// The user's ignore patterns (`*` for anything; blank lines skipped). Errors already kept
        /// that match one go.
        public void SetIgnore(IEnumerable<string> patterns)
        {
            var list = new List<Regex>();
            if (patterns != null)
                foreach (var pattern in patterns)
                {
                    if (string.IsNullOrWhiteSpace(pattern)) continue;
                    var parts = pattern.Trim().Split('*');
                    for (var i = 0; i < parts.Length; i++) parts[i] = Regex.Escape(parts[i]);
                    list.Add(new Regex("^" + string.Join(".*", parts) + "$",
                        RegexOptions.IgnoreCase | RegexOptions.CultureInvariant | RegexOptions.Singleline, TimeSpan.FromMilliseconds(50)));
                }
            lock (gate)
            {
                ignore = list;
                entries.RemoveAll(e => Ignored(e.Line));
                byKey.Clear();
                foreach (var e in entries) byKey[e.Key] = e;
            }
        }

        /// Distinct errors kept.
        public int Count { get { lock (gate) return entries.Count; } }

        /// One message from Unity's log callback (any thread).
        public void Add(string message, string stackTrace, LogKind kind)
        {
            if (!(kind == LogKind.Error || kind == LogKind.Assert || kind == LogKind.Exception) || string.IsNullOrEmpty(message)) return;
            var first = FirstLine(message);
            var line = TurnScope.OneLine(first, MaxLineChars);
            var place = Place(stackTrace);
            var key = first + "\n" + place;
            lock (gate)
            {
                if (Ignored(first)) return;
                Entry entry;
                if (byKey.TryGetValue(key, out entry))
                {
                    entry.Count++;
                    entries.Remove(entry);
                    entries.Add(entry);
                    return;
                }
                entry = new Entry { Key = key, Line = line, Place = place, Count = 1 };
                entries.Add(entry);
                byKey[key] = entry;
                if (entries.Count > Capacity)
                {
                    byKey.Remove(entries[0].Key);
                    entries.RemoveAt(0);
                }
            }
        }

        public void Clear() { lock (gate) { entries.Clear(); byKey.Clear(); } }

        /// The chip, or null when there is nothing to attach.
        public ContextChip Chip()
        {
            lock (gate)
            {
                if (entries.Count == 0) return null;
                var detail = new StringBuilder();
                var from = Math.Max(0, entries.Count - MaxShown);
                if (from > 0) detail.Append("(").Append(from).Append(" older not shown)\n");
                for (var i = from; i < entries.Count; i++)
                {
                    var e = entries[i];
                    if (e.Count > 1) detail.Append('×').Append(e.Count).Append(' ');
                    detail.Append(e.Line);
                    if (e.Place.Length > 0) detail.Append(" (at ").Append(TurnScope.OneLine(e.Place, MaxLineChars)).Append(')');
                    if (i + 1 < entries.Count) detail.Append('\n');
                }
                var total = 0;
                foreach (var e in entries) total += e.Count;
                return new ContextChip
                {
                    Kind = Kind,
                    Label = entries.Count + (entries.Count == 1 ? " console error" : " distinct console errors") + (total > entries.Count ? " (" + total + " in all)" : ""),
                    Detail = detail.ToString(),
                };
            }
        }

        bool Ignored(string firstLine)
        {
            foreach (var pattern in ignore)
            {
                try { if (pattern.IsMatch(firstLine)) return true; }
                catch (RegexMatchTimeoutException) { }
            }
            return false;
        }

        static string FirstLine(string message)
        {
            var end = message.IndexOfAny(new[] { '\n', '\r' });
            return (end < 0 ? message : message.Substring(0, end)).Trim();
        }

        static string Place(string stackTrace)
        {
            if (string.IsNullOrEmpty(stackTrace)) return "";
            try
            {
                var match = StackPlace.Match(stackTrace);
                return match.Success ? match.Groups[1].Value : "";
            }
            catch (RegexMatchTimeoutException) { return ""; }
        }
    }
}
