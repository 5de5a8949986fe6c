// Asset links (Core/Unity/AssetLinks.cs): paths in a reply become links only when the injected
// index says the asset exists, found only in text (never in or across the renderer's tags), and
// the only tags added are the links' own: removing them gives back the chokepoint's output exactly.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using Codiva.Panel;
using Codiva.Unity;
using NUnit.Framework;

namespace Codiva.Tests
{
    sealed class FakeAssetIndex : IAssetIndex
    {
        public readonly HashSet<string> Paths;
        public readonly List<string> Asked = new List<string>();
        public bool Everything;
        public FakeAssetIndex(params string[] paths) { Paths = new HashSet<string>(paths); }
        public bool Exists(string path) { Asked.Add(path); return Everything || Paths.Contains(path); }
    }

    [TestFixture]
    public class AssetLinkTests
    {
        static readonly Regex Added = new Regex("<link=\"asset:\\d+\"><u>|</u></link>");

        /// The links' own tags removed: must be the input.
        static string Unlinked(string rich) => Added.Replace(rich, "");

        static string L(int n, string text) => "<link=\"asset:" + n + "\"><u>" + text + "</u></link>";

        [Test]
        public void Only_paths_that_exist_become_links()
        {
            var index = new FakeAssetIndex("Assets/Scripts/Player.cs", "Packages/com.unity.ugui/package.json", "Assets/Scenes");
            var rich = RichText.FromMarkdown("I changed Assets/Scripts/Player.cs and Assets/Scripts/Ghost.cs; see Packages/com.unity.ugui/package.json, and Assets/Scenes.");
            var linked = AssetLinks.Linkify(rich, index);
            Assert.AreEqual("I changed " + L(0, "Assets/Scripts/Player.cs") + " and Assets/Scripts/Ghost.cs; see "
                + L(1, "Packages/com.unity.ugui/package.json") + ", and " + L(2, "Assets/Scenes") + ".", linked.Rich);
            CollectionAssert.AreEqual(new[] { "Assets/Scripts/Player.cs", "Packages/com.unity.ugui/package.json", "Assets/Scenes" }, linked.Links.Select(l => l.Path));
            CollectionAssert.AreEqual(new[] { "Assets/Scripts/Player.cs", "Assets/Scripts/Ghost.cs", "Packages/com.unity.ugui/package.json", "Assets/Scenes" }, index.Asked);
            Assert.AreEqual("Packages/com.unity.ugui/package.json", AssetLinks.Of(linked, "asset:1").Path);
            Assert.IsNull(AssetLinks.Of(linked, "asset:3"));
            Assert.IsNull(AssetLinks.Of(linked, "https://example.com"));
            Assert.IsNull(AssetLinks.Of(linked, "asset:-1"));
        }

        [Test]
        public void A_line_number_goes_with_the_link_and_words_around_a_path_do_not()
        {
            var index = new FakeAssetIndex("Assets/A.cs", "Assets/B.cs");
            var linked = AssetLinks.Linkify(RichText.Escape("at Assets/A.cs:42, (Assets/B.cs) MyAssets/A.cs x/Assets/A.cs Assets/A.cs. \"Assets/B.cs\""), index);
            Assert.AreEqual("at " + L(0, "Assets/A.cs:42") + ", (" + L(1, "Assets/B.cs") + ") MyAssets/A.cs x/Assets/A.cs " + L(2, "Assets/A.cs") + ". \"" + L(3, "Assets/B.cs") + "\"", linked.Rich);
            Assert.AreEqual(42, linked.Links[0].Line);
            Assert.AreEqual(0, linked.Links[1].Line);
            // Found in plain text too, existing or not; `..` never.
            CollectionAssert.AreEqual(new[] { "Assets/X.prefab", "Packages/p" }, AssetLinks.Find("Assets/X.prefab Assets/../etc/passwd Packages/p").Select(l => l.Path));
        }

        [Test]
        public void Paths_in_code_spans_and_fences_are_linked_inside_the_renderers_tags_never_across_them()
        {
            var index = new FakeAssetIndex("Assets/Scripts/Player.cs");
            var rich = RichText.FromMarkdown("Open `Assets/Scripts/Player.cs` now.\n\n```\nAssets/Scripts/Player.cs\n```\n**Assets/Scripts/Player.cs**");
            var linked = AssetLinks.Linkify(rich, index);
            Assert.AreEqual(rich, Unlinked(linked.Rich));
            Assert.AreEqual(3, linked.Links.Count);
            StringAssert.Contains("<color=" + RichText.CodeColor + ">" + L(0, "Assets/Scripts/Player.cs") + "</color>", linked.Rich);
            StringAssert.Contains("<b>" + L(2, "Assets/Scripts/Player.cs") + "</b>", linked.Rich);
        }

        [Test]
        public void Markup_in_or_next_to_a_path_is_never_made_a_tag()
        {
            var index = new FakeAssetIndex { Everything = true };
            foreach (var text in new[]
            {
                "Assets/<color=red>x</color>.cs", "Assets/A.cs<b>", "<link=\"asset:0\">Assets/A.cs</link>", "Assets/\"><u>x",
                "Packages/</u></link><b>", "`Assets/<i>.cs`", "Assets/a\u200B<b>",
            })
            {
                var rich = RichText.FromMarkdown(text);
                var linked = AssetLinks.Linkify(rich, index);
                Assert.AreEqual(rich, Unlinked(linked.Rich), text);
                RichTextTests.Shown(Unlinked(linked.Rich));
                foreach (var link in linked.Links) Assert.IsFalse(link.Path.Contains("<") || link.Path.Contains("\""), link.Path);
            }
        }

        [Test]
        public void Random_replies_get_only_the_links_own_tags_added()
        {
            var random = new Random(27);
            var pieces = new[] { "Assets/", "Packages/", "a", "/", ".cs", ":12", " ", "\n", "<", ">", "`", "**", "```\n", "\"", "\u200B", "<b>", "</color>", "é", "😀", ".", "(", ")" };
            var index = new FakeAssetIndex { Everything = true };
            for (var n = 0; n < 3000; n++)
            {
                var text = new StringBuilder();
                var count = random.Next(1, 20);
                for (var i = 0; i < count; i++) text.Append(pieces[random.Next(pieces.Length)]);
                var rich = RichText.FromMarkdown(text.ToString());
                var linked = AssetLinks.Linkify(rich, index);
                Assert.AreEqual(rich, Unlinked(linked.Rich), text.ToString());
                foreach (var link in linked.Links)
                    Assert.IsTrue(link.Path.StartsWith("Assets/", StringComparison.Ordinal) || link.Path.StartsWith("Packages/", StringComparison.Ordinal), link.Path);
            }
        }

        [Test]
        public void Conversation_items_get_links_but_the_message_being_written()
        {
            var index = new FakeAssetIndex("Assets/A.cs");
            var assistant = new ConversationItem { Kind = ItemKind.Assistant, Rich = RichText.FromMarkdown("see Assets/A.cs") };
            Assert.AreEqual("see " + L(0, "Assets/A.cs"), AssetLinks.ForItem(assistant, index).Rich);
            var streaming = new ConversationItem { Kind = ItemKind.Streaming, Rich = RichText.Escape("see Assets/A.cs") };
            var linked = AssetLinks.ForItem(streaming, index);
            Assert.AreEqual("see Assets/A.cs", linked.Rich);
            Assert.AreEqual(0, linked.Links.Count);
        }

        [Test]
        public void No_index_or_no_text_links_nothing_and_links_stop_at_the_cap()
        {
            Assert.AreEqual("", AssetLinks.Linkify(null, new FakeAssetIndex()).Rich);
            Assert.AreEqual("Assets/A.cs", AssetLinks.Linkify("Assets/A.cs", null).Rich);
            var many = string.Join(" ", Enumerable.Range(0, AssetLinks.MaxLinks + 5).Select(i => "Assets/F" + i + ".cs"));
            var linked = AssetLinks.Linkify(many, new FakeAssetIndex { Everything = true });
            Assert.AreEqual(AssetLinks.MaxLinks, linked.Links.Count);
            Assert.AreEqual(many, Unlinked(linked.Rich));
        }
    }
}
