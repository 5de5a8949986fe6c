// Small wordings the panel's models share: one line of outside text, token counts, durations.
// Every result is plain text: it reaches a label only through RichText (the escape chokepoint).
using System;
using System.Globalization;
using System.Text;

namespace Codiva.Panel
{
    public static class Words
    {
        /// Outside text (a model's, a tool's, a file name) as one line of at most `max` chars:
        /// control characters and bidi overrides go, line breaks and tabs become spaces, runs of
        /// spaces one, and a longer text is cut at a character boundary (never inside a surrogate
        /// pair) with `…`.
        public static string OneLine(string text, int max = 120)
        {
            if (string.IsNullOrEmpty(text)) return "";
            var line = new StringBuilder(Math.Min(text.Length, max + 1));
            var space = false;
            foreach (var c in text)
            {
                var blank = c == '\n' || c == '\r' || c == '\t' || c == ' ' || c == '\u2028' || c == '\u2029';
                if (blank) { space = line.Length > 0; continue; }
                if (!Shown(c)) continue;
                if (space) { line.Append(' '); space = false; }
                line.Append(c);
                if (line.Length > max) break;
            }
            return Cut(line.ToString(), max);
        }

        /// Whether a character of outside text is kept: not a control character (C0, DEL, C1),
        /// not a bidi override or isolate (which would reorder what follows it on screen).
        public static bool Shown(char c)
        {
            if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) return false;
            if (c >= '\u202A' && c <= '\u202E') return false;
            if (c >= '\u2066' && c <= '\u2069') return false;
            if (c == '\u200E' || c == '\u200F' || c == '\u061C') return false;
            return true;
        }

        /// `text` cut to at most `max` chars with `…` (the cut never splits a surrogate pair).
        public static string Cut(string text, int max)
        {
            if (text == null) return "";
            if (text.Length <= max) return text;
            var keep = Math.Max(0, max - 1);
            if (keep > 0 && char.IsHighSurrogate(text[keep - 1])) keep--;
            return text.Substring(0, keep) + "…";
        }

        /// A token count in a few characters: `950`, `12.3k`, `200k`, `1.2M`.
        public static string Tokens(long count)
        {
            if (count < 0) count = 0;
            if (count < 1000) return count.ToString(CultureInfo.InvariantCulture);
            if (count < 1000000) return Short(count / 1000.0) + "k";
            return Short(count / 1000000.0) + "M";
        }

        static string Short(double value) =>
            value >= 100 ? Math.Floor(value).ToString("0", CultureInfo.InvariantCulture)
                : (Math.Floor(value * 10) / 10).ToString("0.#", CultureInfo.InvariantCulture);

        /// A duration in the panel's language: `0.4s`, `12s`, `2m 05s`, `1h 03m` (`12秒`, …).
        public static string Duration(long ms, Language language)
        {
            if (ms < 0) ms = 0;
            if (ms < 10000)
                return Strings.Format(Str.Seconds, language, (Math.Floor(ms / 100.0) / 10).ToString("0.#", CultureInfo.InvariantCulture));
            var seconds = ms / 1000;
            if (seconds < 60) return Strings.Format(Str.Seconds, language, seconds);
            if (seconds < 3600) return Strings.Format(Str.MinutesSeconds, language, seconds / 60, (seconds % 60).ToString("00", CultureInfo.InvariantCulture));
            return Strings.Format(Str.HoursMinutes, language, seconds / 3600, (seconds / 60 % 60).ToString("00", CultureInfo.InvariantCulture));
        }
    }
}
