// Asset paths in the agent's replies as links: `Assets/…` and `Packages/…` (with an optional
// `:line`) become a UI Toolkit `<link>` only when the asset exists (`IAssetIndex`: the Editor asks
// the Asset Database), so a path the model made up stays plain text. It works on rich text that
// already went through the escape chokepoint (`RichText.FromMarkdown` / `RichText.Escape`): the
// renderer's own tags are skipped, a path is found only in text runs and never contains a `<`, and
// what is added around it is ours alone (`<link="asset:N"><u>` … `</u></link>`, N an index into
// the links returned), so no markup ever comes from model text. Removing the added tags gives back
// the input exactly (the tests hold it to that).
//
// UI Toolkit's `<link>` tag and its pointer events (`PointerDownLinkTagEvent`, experimental in
// 2022.3): https://docs.unity3d.com/2022.3/Documentation/Manual/UIE-supported-tags.html.
using System;
using System.Collections.Generic;
using System.Text;
using System.Text.RegularExpressions;
using Codiva.Panel;

namespace Codiva.Unity
{
    /// Whether a project path names an asset (in the Editor: the Asset Database).
    public interface IAssetIndex
    {
        /// `path`: `Assets/…` or `Packages/…`, `/`-separated, as written in the reply.
        bool Exists(string path);
    }

    public sealed class AssetLink
    {
        public string Path;
        /// The `:line` written after it, or 0.
        public int Line;
    }

    public sealed class Linked
    {
        public string Rich;
        public readonly List<AssetLink> Links = new List<AssetLink>();
    }

    public static class AssetLinks
    {
        public const string LinkPrefix = "asset:";
        /// Links made in one text at most (the rest stay text).
        public const int MaxLinks = 100;

        // A path: a root, then characters a Unity path can hold short of spaces, quotes, brackets
        // and punctuation that ends a sentence around it; not inside a longer word or path.
        static readonly Regex PathPattern = new Regex(
            @"(?<![\p{L}\p{N}_./\\-])(?:Assets|Packages)/[^\s<>""'`|*?:;,()\[\]{}" + RichText.TagBreaker + @"]+(?::(?<line>\d{1,7}))?",
            RegexOptions.CultureInvariant, TimeSpan.FromMilliseconds(200));

        /// The paths written in plain text (before any rendering), in order, existing or not.
        public static List<AssetLink> Find(string text)
        {
            var found = new List<AssetLink>();
            if (string.IsNullOrEmpty(text)) return found;
            foreach (var match in Matches(text)) found.Add(match.Link);
            return found;
        }

        /// `rich` (the chokepoint's output) with each existing asset path made a link.
        public static Linked Linkify(string rich, IAssetIndex index)
        {
            var result = new Linked();
            if (string.IsNullOrEmpty(rich) || index == null) { result.Rich = rich ?? ""; return result; }
            var output = new StringBuilder(rich.Length + 32);
            var known = new Dictionary<string, bool>();
            var i = 0;
            while (i < rich.Length)
            {
                if (IsTag(rich, i))
                {
                    var end = rich.IndexOf('>', i);
                    if (end < 0) end = rich.Length - 1;
                    output.Append(rich, i, end - i + 1);
                    i = end + 1;
                    continue;
                }
                var next = i;
                while (next < rich.Length && !IsTag(rich, next)) next++;
                Run(rich.Substring(i, next - i), index, known, output, result);
                i = next;
            }
            result.Rich = output.ToString();
            return result;
        }

        /// A renderer's tag starts here: a `<` the chokepoint did not break.
        static bool IsTag(string rich, int at) =>
            rich[at] == '<' && !(at + 1 < rich.Length && rich[at + 1] == RichText.TagBreaker);

        static void Run(string text, IAssetIndex index, Dictionary<string, bool> known, StringBuilder output, Linked result)
        {
            var at = 0;
            foreach (var match in Matches(text))
            {
                if (result.Links.Count >= MaxLinks) break;
                bool exists;
                if (!known.TryGetValue(match.Link.Path, out exists))
                {
                    exists = index.Exists(match.Link.Path);
                    known[match.Link.Path] = exists;
                }
                if (!exists) continue;
                output.Append(text, at, match.Start - at);
                output.Append("<link=\"").Append(LinkPrefix).Append(result.Links.Count).Append("\"><u>")
                    .Append(text, match.Start, match.Length).Append("</u></link>");
                result.Links.Add(match.Link);
                at = match.Start + match.Length;
            }
            output.Append(text, at, text.Length - at);
        }

        /// A conversation item's rich text with its asset links (the message being written is
        /// left as it is: it changes with every batch, and becomes an entry when done).
        public static Linked ForItem(ConversationItem item, IAssetIndex index) =>
            item.Kind == ItemKind.Streaming ? new Linked { Rich = item.Rich ?? "" } : Linkify(item.Rich, index);

        /// The link a `<link>` id names (`asset:3`), or null.
        public static AssetLink Of(Linked linked, string linkId)
        {
            if (linked == null || linkId == null || !linkId.StartsWith(LinkPrefix, StringComparison.Ordinal)) return null;
            int n;
            return int.TryParse(linkId.Substring(LinkPrefix.Length), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out n)
                && n < linked.Links.Count ? linked.Links[n] : null;
        }

        struct PathMatch
        {
            public int Start, Length;
            public AssetLink Link;
        }

        static IEnumerable<PathMatch> Matches(string text)
        {
            MatchCollection matches;
            try { matches = PathPattern.Matches(text); var _ = matches.Count; }
            catch (RegexMatchTimeoutException) { yield break; }
            foreach (Match match in matches)
            {
                var line = match.Groups["line"];
                var path = line.Success ? match.Value.Substring(0, line.Index - 1 - match.Index) : match.Value;
                // Sentence punctuation after a path is not part of it (`see Assets/A.cs.`).
                var trimmed = path.TrimEnd('.', '!', '/');
                var root = trimmed.StartsWith("Assets/", StringComparison.Ordinal) ? "Assets/".Length
                    : trimmed.StartsWith("Packages/", StringComparison.Ordinal) ? "Packages/".Length : -1;
                if (root < 0 || trimmed.Length <= root || trimmed.Contains("/../") || trimmed.EndsWith("/..", StringComparison.Ordinal)) continue;
                var length = line.Success && trimmed.Length == path.Length ? match.Length : trimmed.Length;
                yield return new PathMatch
                {
                    Start = match.Index,
                    Length = length,
                    Link = new AssetLink
                    {
                        Path = trimmed,
                        Line = line.Success && trimmed.Length == path.Length ? int.Parse(line.Value, System.Globalization.CultureInfo.InvariantCulture) : 0,
                    },
                };
            }
        }
    }
}
