// The escape chokepoint and the Markdown subset: whatever the model writes, the only tags in the
// rich text are the renderer's own, balanced, and the model's `<` is shown as text.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using Codiva.Panel;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class RichTextTests
    {
        const string Z = "\u200B";
        const string Code = "<color=" + RichText.CodeColor + ">";
        const string Badge = "<color=" + RichText.BadgeColor + ">";

        static readonly string[] RendererTags =
        {
            "b", "/b", "i", "/i", "/color", "/size", "size=140%", "size=120%",
            "color=" + RichText.CodeColor, "color=" + RichText.BadgeColor,
        };

        /// Every tag UI Toolkit would read in `rich` (a `<` not followed by the breaker): each is
        /// one the renderer writes, and they nest. Returns the text shown (tags and breakers gone).
        internal static string Shown(string rich)
        {
            var shown = new StringBuilder();
            var open = new Stack<string>();
            for (var i = 0; i < rich.Length; i++)
            {
                var c = rich[i];
                if (c == '\u200B') continue;
                if (c != '<' || (i + 1 < rich.Length && rich[i + 1] == '\u200B')) { shown.Append(c); continue; }
                var end = rich.IndexOf('>', i);
                Assert.Greater(end, i, "a '<' that is neither escaped nor a tag in: " + rich);
                var tag = rich.Substring(i + 1, end - i - 1);
                Assert.Contains(tag, RendererTags, "a tag the renderer did not make in: " + rich);
                var name = tag.Split('=')[0];
                if (name.StartsWith("/")) Assert.AreEqual(name.Substring(1), open.Count == 0 ? null : open.Pop(), "unbalanced in: " + rich);
                else open.Push(name);
                i = end;
            }
            Assert.AreEqual(0, open.Count, "unclosed tag in: " + rich);
            return shown.ToString();
        }

        [Test]
        public void Escape_breaks_every_angle_bracket_and_drops_control_characters()
        {
            Assert.AreEqual("List<" + Z + "int>", RichText.Escape("List<int>"));
            Assert.AreEqual("<" + Z + "color=red>x<" + Z + "/color>", RichText.Escape("<color=red>x</color>"));
            Assert.AreEqual("<" + Z + "/noparse><" + Z + "b>", RichText.Escape("</noparse><b>"));
            Assert.AreEqual("a\tb\nc", RichText.Escape("a\tb\r\nc\u0000\u001b\u007f\u0085"));
        }

        [Test]
        public void Markup_from_the_model_is_shown_as_text()
        {
            foreach (var text in new[] { "List<int>", "<color=red>x</color>", "</noparse><b>bold</b><noparse>", "<noparse></noparse></b></i></color>", "a < b > c", "<<b>>", "<" })
            {
                var rich = RichText.FromMarkdown(text);
                Assert.AreEqual(text, Shown(rich), text);
                Assert.IsFalse(rich.Contains("<b>") || rich.Contains("</"), rich);
            }
        }

        [Test]
        public void Tags_inside_code_spans_and_fenced_blocks_stay_text()
        {
            Assert.AreEqual("use " + Code + "<" + Z + "b>" + "</color> here", RichText.FromMarkdown("use `<b>` here"));
            Assert.AreEqual("a " + Code + "x ** <" + Z + "i>*</color> b", RichText.FromMarkdown("a `x ** <i>*` b"));
            Assert.AreEqual(Badge + "[html]</color>\n" + Code + "<" + Z + "b>bold<" + Z + "/b>\n**not bold**</color>",
                RichText.FromMarkdown("```html\n<b>bold</b>\n**not bold**\n```"));
            // The language badge is model text too.
            Assert.AreEqual(Badge + "[<" + Z + "b>]</color>\n" + Code + "x</color>", RichText.FromMarkdown("```<b>\nx\n```"));
            // A fence never closed runs to the end.
            Assert.AreEqual(Code + "<" + Z + "/color></color>", RichText.FromMarkdown("```\n</color>"));
        }

        [Test]
        public void Unbalanced_emphasis_is_text()
        {
            Assert.AreEqual("**bold", RichText.FromMarkdown("**bold"));
            Assert.AreEqual("<b>a</b> **b", RichText.FromMarkdown("**a** **b"));
            Assert.AreEqual("* not italic", RichText.FromMarkdown("\\* not italic"));
            Assert.AreEqual("2 * 3 * 4", RichText.FromMarkdown("2 * 3 * 4"));
            Assert.AreEqual("<b>x <i>y</i> z</b>", RichText.FromMarkdown("**x *y* z**"));
            Assert.AreEqual("<b>" + Code + "a**b</color></b>", RichText.FromMarkdown("**`a**b`**"));
        }

        [Test]
        public void A_Japanese_paragraph_keeps_its_text()
        {
            Assert.AreEqual("これは<b>重要</b>です。" + Code + "List<" + Z + "int></color>を使います。\n\n<i>English</i> and 日本語",
                RichText.FromMarkdown("これは**重要**です。`List<int>`を使います。\n\n*English* and 日本語"));
        }

        [Test]
        public void Every_ascii_control_character_goes_and_makes_no_tag()
        {
            var text = new StringBuilder();
            for (var c = 0; c < 32; c++) text.Append("<").Append((char)c).Append("b>").Append((char)c);
            text.Append("<\u007fb>");
            var rich = RichText.FromMarkdown(text.ToString());
            Shown(rich);
            Assert.IsFalse(rich.Any(c => c < 32 && c != '\n' && c != '\t' || c == 0x7f), rich);
            Assert.IsFalse(rich.Contains("<b>"), rich);
        }

        [Test]
        public void A_reply_renders_exactly()
        {
            var reply = "# Plan\nUse **List<int>** and `Dictionary<K, V>`; see [the docs](https://example.com/a_b).\n\n"
                + "- first *item*\n  - nested\n2. second\n\n```csharp\nvar x = new List<int>();\n```\n## Done";
            Assert.AreEqual(
                "<b><size=140%>Plan</size></b>\n"
                + "Use <b>List<" + Z + "int></b> and " + Code + "Dictionary<" + Z + "K, V></color>; see the docs (https://example.com/a_b).\n"
                + "\n"
                + "  • first <i>item</i>\n"
                + "    • nested\n"
                + "  2. second\n"
                + "\n"
                + Badge + "[csharp]</color>\n"
                + Code + "var x = new List<" + Z + "int>();</color>\n"
                + "<b><size=120%>Done</size></b>",
                RichText.FromMarkdown(reply));
        }

        [Test]
        public void Random_markdown_never_yields_a_tag_the_renderer_did_not_make()
        {
            var alphabet = "<>/*`[]()#-+1.\\ \n\tab=~_!\u200B\u0000";
            var random = new Random(27);
            for (var n = 0; n < 3000; n++)
            {
                var text = new StringBuilder();
                var length = random.Next(1, 40);
                for (var i = 0; i < length; i++) text.Append(alphabet[random.Next(alphabet.Length)]);
                Shown(RichText.FromMarkdown(text.ToString()));
            }
        }
    }
}
