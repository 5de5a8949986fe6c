// The Editor's selection as the agent is told it: a context chip with the object's hierarchy path
// (`Scene/Root/Child`), its components, its Transform and its key properties (active, tag, layer,
// …), built here from a small interface so the Editor only reads Unity's selection
// (`Editor/UnitySelection.cs`) and the rules are tested.
//
// Names come from the project (a scene object can be called anything, an imported asset's too), and
// the chip is model-visible text inside the context block: a name must not end its line (and forge
// the block's footer or an instruction), open a tag, or add a level to the path. So each name is
// written as the inside of a JSON string — `\`, control and format characters (line breaks, U+2028,
// bidi overrides, …) are escapes — with `/`, `<` and `>` escaped too (`\/`, `\u003c`, `\u003e`, which
// a JSON reader reads back as themselves). Each name, the depth, the component list are capped, so a
// chip stays well under the block's per-chip cap (`ContextBlock.MaxChipBytes`).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Codiva.Client
{
    /// One selected GameObject, as far as the chip needs it (in the Editor: `Selection.activeGameObject`).
    public interface ISelectedObject
    {
        /// The scene the object is in (`Scene.name`, "" for an untitled one), or null for an object of
        /// no scene (a prefab asset).
        string Scene { get; }
        /// The asset the object is part of (`AssetDatabase.GetAssetPath`), or null/"" for a scene object.
        string AssetPath { get; }
        /// Names from the hierarchy's root to the object itself.
        IList<string> Hierarchy { get; }
        /// Each component's type name in order (the Transform first); null for a missing script.
        IList<string> Components { get; }
        /// The Transform as the Inspector shows it (local to the parent): x, y, z each.
        float[] Position { get; }
        float[] Rotation { get; }
        float[] Scale { get; }
        /// The object's own settings worth a word, in order (`active`, `tag`, `layer`, `static`,
        /// `children`); null or empty for none.
        IList<KeyValuePair<string, string>> Properties { get; }
    }

    public static class SelectionChip
    {
        public const string Kind = "selection";
        /// Characters of a name kept (before escaping); a longer one ends with `…`.
        public const int MaxNameChars = 40;
        /// Levels of the path shown: the first and the last `MaxDepth - 2`, with `…` between.
        public const int MaxDepth = 6;
        /// Components listed; the rest are counted (`… and N more`).
        public const int MaxComponents = 12;
        /// Properties listed; the rest are counted.
        public const int MaxProperties = 8;
        public const string UntitledScene = "Untitled";

        /// The chip for a selected object, or null for no selection.
        public static ContextChip Of(ISelectedObject selected)
        {
            if (selected == null || selected.Hierarchy == null || selected.Hierarchy.Count == 0) return null;
            var asset = string.IsNullOrEmpty(selected.AssetPath) ? null : selected.AssetPath;
            var path = new List<string>();
            if (asset == null) path.Add(Name(string.IsNullOrEmpty(selected.Scene) ? UntitledScene : selected.Scene));
            var names = selected.Hierarchy;
            if (names.Count + path.Count <= MaxDepth)
                foreach (var name in names) path.Add(Name(name));
            else
            {
                var tail = MaxDepth - 2;
                path.Add(Name(names[0]));
                path.Add("…");
                for (var i = names.Count - tail; i < names.Count; i++) path.Add(Name(names[i]));
            }

            var detail = new StringBuilder();
            if (asset != null) detail.Append("asset: ").Append(Name(asset, keepSlashes: true)).Append('\n');
            var components = selected.Components ?? new List<string>();
            detail.Append("components: ");
            for (var i = 0; i < components.Count && i < MaxComponents; i++)
                detail.Append(i == 0 ? "" : ", ").Append(components[i] == null ? "(missing script)" : Name(components[i]));
            if (components.Count > MaxComponents) detail.Append(", … and ").Append(components.Count - MaxComponents).Append(" more");
            if (components.Count == 0) detail.Append("(none)");
            if (selected.Position != null)
                detail.Append("\nposition: ").Append(Vector(selected.Position))
                    .Append("  rotation: ").Append(Vector(selected.Rotation))
                    .Append("  scale: ").Append(Vector(selected.Scale));
            var properties = selected.Properties;
            if (properties != null && properties.Count > 0)
            {
                detail.Append("\n");
                for (var i = 0; i < properties.Count && i < MaxProperties; i++)
                    detail.Append(i == 0 ? "" : ", ").Append(Name(properties[i].Key)).Append(": ").Append(Name(properties[i].Value));
                if (properties.Count > MaxProperties) detail.Append(", … and ").Append(properties.Count - MaxProperties).Append(" more");
            }
            return new ContextChip { Kind = Kind, Label = string.Join("/", path), Detail = detail.ToString() };
        }

        /// A name as one line of model-visible text (see the file's comment), at most `MaxNameChars`
        /// characters of it kept. `keepSlashes`: an asset path, whose `/` are its own separators (four
        /// times as many characters kept).
        public static string Name(string name, bool keepSlashes = false)
        {
            if (name == null) return "";
            var length = name.Length;
            var max = keepSlashes ? 4 * MaxNameChars : MaxNameChars;
            var clipped = length > max;
            if (clipped)
            {
                length = max;
                if (char.IsHighSurrogate(name[length - 1])) length--;
            }
            var text = new StringBuilder(length + 8);
            for (var i = 0; i < length; i++)
            {
                var c = name[i];
                switch (c)
                {
                    case '\\': text.Append("\\\\"); continue;
                    case '\n': text.Append("\\n"); continue;
                    case '\r': text.Append("\\r"); continue;
                    case '\t': text.Append("\\t"); continue;
                    case '/': text.Append(keepSlashes ? "/" : "\\/"); continue;
                    case '<': case '>': Unicode(text, c); continue;
                }
                switch (char.GetUnicodeCategory(c))
                {
                    case UnicodeCategory.Control:
                    case UnicodeCategory.Format:
                    case UnicodeCategory.LineSeparator:
                    case UnicodeCategory.ParagraphSeparator:
                        Unicode(text, c);
                        continue;
                }
                // A lone surrogate (not half of a pair) is not text either.
                if (char.IsSurrogate(c) && !(i + 1 < length && char.IsSurrogatePair(c, name[i + 1]))
                    && !(i > 0 && char.IsSurrogatePair(name[i - 1], c))) { Unicode(text, c); continue; }
                text.Append(c);
            }
            if (clipped) text.Append('…');
            return text.ToString();
        }

        /// A property as the chip lists it: `true`/`false`, numbers in the invariant culture.
        public static KeyValuePair<string, string> Property(string name, object value) =>
            new KeyValuePair<string, string>(name, value is bool b ? (b ? "true" : "false")
                : value is IFormattable f ? f.ToString(null, CultureInfo.InvariantCulture) : value?.ToString() ?? "");

        static void Unicode(StringBuilder text, char c) => text.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));

        static string Vector(float[] v)
        {
            if (v == null || v.Length < 3) return "?";
            return "(" + Number(v[0]) + ", " + Number(v[1]) + ", " + Number(v[2]) + ")";
        }

        static string Number(float value)
        {
            var text = value.ToString("0.###", CultureInfo.InvariantCulture);
            return text == "-0" ? "0" : text;
        }
    }
}
