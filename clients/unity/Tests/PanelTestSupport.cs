// What the panel tests share: the text a rich-text label shows, with every tag checked to be one
// the panel's models write (RichText's, the diff's colours), balanced.
using System.Collections.Generic;
using System.Text;
using Codiva.Panel;
using NUnit.Framework;

namespace Codiva.Tests
{
    public static class PanelRich
    {
        static readonly HashSet<string> ModelTags = new HashSet<string>
        {
            "b", "/b", "i", "/i", "/color", "/size", "size=140%", "size=120%",
            "color=" + RichText.CodeColor, "color=" + RichText.BadgeColor,
            "color=" + LineDiff.AddedColor, "color=" + LineDiff.RemovedColor,
        };

        /// The text `rich` shows (tags and tag breakers gone); fails on a `<` that would open a
        /// tag the models do not write, or on unbalanced tags.
        public static string Shown(string rich)
        {
            var shown = new StringBuilder();
            var open = new Stack<string>();
            for (var i = 0; i < rich.Length; i++)
            {
                var c = rich[i];
                if (c == RichText.TagBreaker) continue;
                if (c != '<' || (i + 1 < rich.Length && rich[i + 1] == RichText.TagBreaker)) { shown.Append(c); continue; }
                var end = rich.IndexOf('>', i);
                Assert.Greater(end, i, "a '<' that is neither escaped nor a tag in: " + rich);
                var tag = rich.Substring(i + 1, end - i - 1);
                Assert.IsTrue(ModelTags.Contains(tag), "a tag the panel did not write (" + tag + ") in: " + rich);
                var name = tag.Split('=')[0];
                if (name.StartsWith("/")) Assert.AreEqual(name.Substring(1), open.Count == 0 ? null : open.Pop(), "unbalanced in: " + rich);
                else open.Push(name);
                i = end;
            }
            Assert.AreEqual(0, open.Count, "unclosed tag in: " + rich);
            return shown.ToString();
        }
    }
}
