// The text rules a client shares with codiva (codiva_protocol::text): how the text of a message
// being written stays within its cap, and how a text cut at its front is recognised. Sizes and
// counts are UTF-8 bytes, as codiva counts them; positions in a C# string are its chars.
using System;
using System.Globalization;
using System.Text;

namespace Codiva.Protocol
{
    public static class TextRules
    {
        /// The longest text kept for one message, in UTF-8 bytes (256 KiB).
        public const int MaxMessageText = 256 * 1024;

        const string FrontMarkerStart = "[";
        const string FrontMarkerEnd = " more bytes] …\n";

        public static int Utf8Length(string text) => Encoding.UTF8.GetByteCount(text);

        /// Appends a streamed delta to the text of the message being written, keeping at most
        /// MaxMessageText: past it, the text keeps its end (half the cap) after a
        /// `[N more bytes] …` line, N counting every byte cut so far
        /// (codiva_protocol::view::push_stream).
        public static string PushStream(string stream, string delta)
        {
            if ((long)Utf8Length(stream) + Utf8Length(delta) <= MaxMessageText) return stream + delta;
            long hidden;
            string kept;
            if (!TryCutFront(stream, out hidden, out kept))
            {
                hidden = 0;
                kept = stream;
            }
            kept += delta;
            var at = TailStart(kept, MaxMessageText / 2);
            return FrontMarked(hidden + Encoding.UTF8.GetByteCount(kept.Substring(0, at)), kept.Substring(at));
        }

        /// `kept` after the marker that says `cut` bytes before it are not there (none for 0).
        public static string FrontMarked(long cut, string kept) =>
            cut == 0 ? kept : FrontMarkerStart + cut.ToString(CultureInfo.InvariantCulture) + FrontMarkerEnd + kept;

        /// A text whose front was cut (`[N more bytes] …` then its end): N and the end kept.
        public static bool TryCutFront(string text, out long cut, out string kept)
        {
            cut = 0;
            kept = null;
            if (!text.StartsWith(FrontMarkerStart, StringComparison.Ordinal)) return false;
            var end = text.IndexOf(FrontMarkerEnd, FrontMarkerStart.Length, StringComparison.Ordinal);
            if (end <= FrontMarkerStart.Length) return false;
            for (var i = FrontMarkerStart.Length; i < end; i++)
                if (text[i] < '0' || text[i] > '9') return false;
            if (!long.TryParse(text.Substring(FrontMarkerStart.Length, end - FrontMarkerStart.Length), NumberStyles.None, CultureInfo.InvariantCulture, out cut))
                return false;
            kept = text.Substring(end + FrontMarkerEnd.Length);
            return true;
        }

        /// Where the kept end of `text` starts (a char index) when at most `maxBytes` of it are
        /// kept: the first top-level Markdown block start at or after the earliest place
        /// allowed; else the first line start there outside a fenced code block; else the first
        /// line start; else that place (codiva_protocol::text::tail_start).
        public static int TailStart(string text, int maxBytes)
        {
            var earliest = CeilBoundary(text, Math.Max(0, (long)Utf8Length(text) - maxBytes));
            if (earliest == 0) return 0;
            var block = 0;
            int next;
            while ((next = NextBlockStart(text, block)) >= 0)
            {
                if (next >= earliest) return next;
                block = next;
            }
            var inFence = false;
            var firstLine = -1;
            var start = 0;
            while (start < text.Length)
            {
                var newline = text.IndexOf('\n', start);
                var end = newline < 0 ? text.Length : newline + 1;
                if (start >= earliest)
                {
                    if (firstLine < 0) firstLine = start;
                    if (!inFence) return start;
                }
                if (IsFence(text, start, end)) inFence = !inFence;
                start = end;
            }
            return firstLine >= 0 ? firstLine : earliest;
        }

        /// The first place after `from` (a line start outside any fenced code block) where a
        /// top-level Markdown block starts: a complete line outside a fenced code block, after a
        /// blank line, that starts in column 0 with neither a list marker, a quote nor HTML; -1
        /// when there is none (codiva_protocol::text::next_block_start).
        public static int NextBlockStart(string text, int from)
        {
            var line = from;
            var inFence = false;
            var afterBlank = false;
            int newline;
            while (line <= text.Length && (newline = text.IndexOf('\n', line)) >= 0)
            {
                var end = newline + 1;
                var start = line;
                line = end;
                if (start > from && !inFence && afterBlank && StartsTopLevelBlock(text, start)) return start;
                if (IsFence(text, start, end)) inFence = !inFence;
                afterBlank = !inFence && IsBlank(text, start, end);
            }
            return -1;
        }

        /// The char index where the first `bytes` UTF-8 bytes of `text` end, moved forward to a
        /// character's start (the text's length when past its end).
        static int CeilBoundary(string text, long bytes)
        {
            long counted = 0;
            var at = 0;
            while (at < text.Length && counted < bytes)
            {
                var c = text[at];
                if (c < 0x80) { counted += 1; at += 1; }
                else if (c < 0x800) { counted += 2; at += 1; }
                else if (char.IsHighSurrogate(c) && at + 1 < text.Length && char.IsLowSurrogate(text[at + 1])) { counted += 4; at += 2; }
                else { counted += 3; at += 1; }
            }
            return at;
        }

        /// A line (`text[start..]`) that starts a block in column 0 that no later line can join
        /// from before it.
        static bool StartsTopLevelBlock(string text, int start)
        {
            var first = text[start];
            if (IsWhiteSpace(first) || first == '>' || first == '<' || first == '-' || first == '*' || first == '+' || first == '|' || first == '[')
                return false;
            var digits = 0;
            while (start + digits < text.Length && text[start + digits] >= '0' && text[start + digits] <= '9') digits++;
            if (digits == 0 || start + digits >= text.Length) return true;
            var after = text[start + digits];
            return after != '.' && after != ')';
        }

        /// A line that opens or closes a fenced code block (three backticks or tildes, up to
        /// three spaces in).
        static bool IsFence(string text, int start, int end)
        {
            var at = start;
            while (at < end && text[at] == ' ') at++;
            if (at - start > 3 || end - at < 3) return false;
            return string.CompareOrdinal(text, at, "```", 0, 3) == 0 || string.CompareOrdinal(text, at, "~~~", 0, 3) == 0;
        }

        static bool IsBlank(string text, int start, int end)
        {
            for (var i = start; i < end; i++)
                if (!IsWhiteSpace(text[i])) return false;
            return true;
        }

        /// Unicode's White_Space, as Rust's `char::is_whitespace` (no table of this runtime's).
        static bool IsWhiteSpace(char c) =>
            (c >= '\u0009' && c <= '\u000d') || c == ' ' || c == '\u0085' || c == '\u00a0' || c == '\u1680'
            || (c >= '\u2000' && c <= '\u200a') || c == '\u2028' || c == '\u2029' || c == '\u202f' || c == '\u205f' || c == '\u3000';
    }
}
