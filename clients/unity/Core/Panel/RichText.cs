// Model text → UI Toolkit rich text, through one escape. Every character that comes from the
// model (or from a tool, a file, the user) reaches a Label only through `Escape`; the only tags in
// the result are the ones this file writes, always in balanced pairs around escaped text.
//
// The escape: UI Toolkit's rich text (TextCore, the TextMesh Pro parser) reads a tag as `<`
// immediately followed by a tag name up to `>`; it has no character entities (`&lt;` is shown as
// the four characters). `<noparse>` exists but does not nest and ends at the first `</noparse>`
// the parser sees (Unity's App UI `RichTextUtils.NeutralizeNoParse`,
// https://docs.unity3d.com/Packages/com.unity.dt.app-ui@3.0/api/Unity.AppUI.Core.RichTextUtils.html),
// so model text that contains `</noparse>` would have to be rewritten anyway. The one rule here is
// the one Unity users found for every rich-text parser of Unity: put U+200B ZERO WIDTH SPACE right
// after each `<` (https://answers.unity.com/questions/1199386, "str.Replace("<", "<\u200B")"):
// no tag name starts with it, so no `<` of the model opens a tag, inside `<noparse>` or not, and
// the character is invisible. (Checked here against our reading of the parser, not in Unity.)
using System;
using System.Collections.Generic;
using System.Text;

namespace Codiva.Panel
{
    /// The Markdown subset the panel shows: paragraphs, `#` headings, `**bold**`, `*italic*`,
    /// `` `code` ``, bullet and numbered lists, fenced code blocks (with a language badge), links
    /// shown as their text and address. Anything else is shown as the text it is.
    public static class RichText
    {
        /// Follows every `<` of model text: the `<` can then never open a tag.
        public const char TagBreaker = '\u200B';
        /// Colours of the renderer's own tags (the panel's theme for code and badges).
        public const string CodeColor = "#D7BA7D";
        public const string BadgeColor = "#8C8C8C";
        public const int MaxInput = 64 * 1024;

        /// The chokepoint: text from outside shown as itself. Control characters go (but newline
        /// and tab), a carriage return included; every `<` gets the tag breaker after it.
        public static string Escape(string text)
        {
            if (string.IsNullOrEmpty(text)) return "";
            var escaped = new StringBuilder(text.Length + 8);
            foreach (var c in text)
            {
                if (c == '<') { escaped.Append('<').Append(TagBreaker); continue; }
                if (c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f && !(c >= 0x80 && c < 0xa0))) escaped.Append(c);
            }
            return escaped.ToString();
        }

        /// Model text (Markdown) as rich text. Input past `MaxInput` characters is cut with `…`.
        public static string FromMarkdown(string markdown)
        {
            if (string.IsNullOrEmpty(markdown)) return "";
            // Cut at a character boundary (never inside a surrogate pair).
            if (markdown.Length > MaxInput) markdown = Words.Cut(markdown, MaxInput + 1);
            var lines = markdown.Replace("\r\n", "\n").Split('\n');
            var output = new List<string>();
            var blank = false;
            for (var i = 0; i < lines.Length; i++)
            {
                var line = lines[i];
                var fence = FenceOf(line);
                if (fence != null)
                {
                    var code = new List<string>();
                    i++;
                    while (i < lines.Length && !IsClosingFence(lines[i], fence.Marker)) code.Add(lines[i++]);
                    if (output.Count > 0 && !blank) output.Add("");
                    if (fence.Language.Length > 0) output.Add(Wrap("color=" + BadgeColor, Escape("[" + fence.Language + "]"), "color"));
                    output.Add(Wrap("color=" + CodeColor, Escape(string.Join("\n", code)), "color"));
                    blank = false;
                    continue;
                }
                if (line.Trim().Length == 0)
                {
                    if (output.Count > 0 && !blank) output.Add("");
                    blank = true;
                    continue;
                }
                blank = false;
                output.Add(Block(line));
            }
            while (output.Count > 0 && output[output.Count - 1].Length == 0) output.RemoveAt(output.Count - 1);
            return string.Join("\n", output);
        }

        sealed class Fence
        {
            public string Marker;
            public string Language;
        }

        static Fence FenceOf(string line)
        {
            var trimmed = line.TrimStart(' ');
            if (line.Length - trimmed.Length > 3) return null;
            foreach (var mark in new[] { '`', '~' })
            {
                var n = 0;
                while (n < trimmed.Length && trimmed[n] == mark) n++;
                if (n < 3) continue;
                var info = trimmed.Substring(n).Trim();
                if (mark == '`' && info.IndexOf('`') >= 0) return null;
                var space = info.IndexOfAny(new[] { ' ', '\t' });
                return new Fence { Marker = new string(mark, n), Language = space < 0 ? info : info.Substring(0, space) };
            }
            return null;
        }

        static bool IsClosingFence(string line, string marker)
        {
            var trimmed = line.Trim();
            return trimmed.Length >= marker.Length && trimmed.Trim(marker[0]).Length == 0;
        }

        static string Block(string line)
        {
            var trimmed = line.TrimStart(' ');
            var indent = line.Length - trimmed.Length;
            var level = 0;
            while (level < trimmed.Length && level < 6 && trimmed[level] == '#') level++;
            if (level > 0 && indent <= 3 && (level == trimmed.Length || trimmed[level] == ' '))
            {
                var title = Inline(trimmed.Substring(level).Trim().TrimEnd('#').TrimEnd());
                var size = level == 1 ? "140%" : level == 2 ? "120%" : null;
                return Wrap("b", size == null ? title : Wrap("size=" + size, title, "size"), "b");
            }
            var pad = new string(' ', indent);
            if (trimmed.Length >= 2 && (trimmed[0] == '-' || trimmed[0] == '*' || trimmed[0] == '+') && trimmed[1] == ' ')
                return pad + "  • " + Inline(trimmed.Substring(2).TrimStart());
            var digits = 0;
            while (digits < trimmed.Length && digits < 9 && char.IsDigit(trimmed[digits]) && trimmed[digits] < 128) digits++;
            if (digits > 0 && digits + 1 < trimmed.Length && (trimmed[digits] == '.' || trimmed[digits] == ')') && trimmed[digits + 1] == ' ')
                return pad + "  " + trimmed.Substring(0, digits) + ". " + Inline(trimmed.Substring(digits + 2).TrimStart());
            return Inline(line.Trim());
        }

        /// Inline spans of one line. Tags are written only as pairs around a rendered inside;
        /// an opener without its closer on the line is the text it is.
        static string Inline(string text)
        {
            var output = new StringBuilder();
            var plain = new StringBuilder();
            Action flush = () => { output.Append(Escape(plain.ToString())); plain.Clear(); };
            var i = 0;
            while (i < text.Length)
            {
                var c = text[i];
                if (c == '\\' && i + 1 < text.Length && IsPunctuation(text[i + 1]))
                {
                    plain.Append(text[i + 1]);
                    i += 2;
                    continue;
                }
                if (c == '`')
                {
                    var run = 0;
                    while (i + run < text.Length && text[i + run] == '`') run++;
                    var close = FindRun(text, '`', run, i + run);
                    if (close < 0) { plain.Append('`', run); i += run; continue; }
                    flush();
                    var code = text.Substring(i + run, close - i - run);
                    if (code.Length > 1 && code[0] == ' ' && code[code.Length - 1] == ' ' && code.Trim().Length > 0) code = code.Substring(1, code.Length - 2);
                    output.Append(Wrap("color=" + CodeColor, Escape(code), "color"));
                    i = close + run;
                    continue;
                }
                if (c == '*' && i + 1 < text.Length && text[i + 1] == '*')
                {
                    var close = FindEmphasisClose(text, "**", i + 2);
                    if (close < 0) { plain.Append("**"); i += 2; continue; }
                    flush();
                    output.Append(Wrap("b", Inline(text.Substring(i + 2, close - i - 2)), "b"));
                    i = close + 2;
                    continue;
                }
                if (c == '*')
                {
                    var close = FindEmphasisClose(text, "*", i + 1);
                    if (close < 0) { plain.Append('*'); i++; continue; }
                    flush();
                    output.Append(Wrap("i", Inline(text.Substring(i + 1, close - i - 1)), "i"));
                    i = close + 1;
                    continue;
                }
                if (c == '[')
                {
                    var end = text.IndexOf("](", i + 1, StringComparison.Ordinal);
                    var stop = end < 0 ? -1 : text.IndexOf(')', end + 2);
                    if (end > i + 1 && stop > end && text.IndexOf('[', i + 1, end - i - 1) < 0)
                    {
                        flush();
                        var url = text.Substring(end + 2, stop - end - 2).Trim();
                        output.Append(Inline(text.Substring(i + 1, end - i - 1)));
                        if (url.Length > 0) output.Append(Escape(" (" + url + ")"));
                        i = stop + 1;
                        continue;
                    }
                }
                plain.Append(c);
                i++;
            }
            flush();
            return output.ToString();
        }

        static bool IsPunctuation(char c) => c < 128 && char.IsPunctuation(c) || c == '`' || c == '<' || c == '>' || c == '*' || c == '#' || c == '+' || c == '|' || c == '~' || c == '^' || c == '=' || c == '$';

        static int FindRun(string text, char mark, int length, int from)
        {
            for (var j = from; j < text.Length; j++)
            {
                if (text[j] != mark) continue;
                var run = 0;
                while (j + run < text.Length && text[j + run] == mark) run++;
                if (run == length) return j;
                j += run - 1;
            }
            return -1;
        }

        /// The closer of `*` or `**` opened before `from`: not right after the opener, not
        /// after a space, and not inside a code span.
        static int FindEmphasisClose(string text, string marker, int from)
        {
            if (from >= text.Length || text[from] == ' ') return -1;
            for (var j = from; j < text.Length; j++)
            {
                if (text[j] == '\\') { j++; continue; }
                if (text[j] == '`')
                {
                    var run = 0;
                    while (j + run < text.Length && text[j + run] == '`') run++;
                    var close = FindRun(text, '`', run, j + run);
                    if (close >= 0) { j = close + run - 1; continue; }
                    j += run - 1;
                    continue;
                }
                if (j == from || text[j - 1] == ' ') continue;
                if (string.CompareOrdinal(text, j, marker, 0, marker.Length) != 0) continue;
                if (marker == "*")
                {
                    if (j + 1 < text.Length && text[j + 1] == '*') { j++; continue; }
                    if (text[j - 1] == '*') continue;
                }
                return j;
            }
            return -1;
        }

        static string Wrap(string open, string inside, string close) => "<" + open + ">" + inside + "</" + close + ">";
    }
}
