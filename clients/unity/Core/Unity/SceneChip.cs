// The active scene as a context chip: its name and asset path, whether it has unsaved changes, its
// root objects (the first few by name, the rest counted) and the other scenes loaded with it. Read
// through `IActiveScene` (the Editor's is `Editor/UnityContext.cs` over `SceneManager`); names are
// the project's, so each is written the way `SelectionChip.Name` writes one (one line, no tag, no
// path level of its own).
using System.Collections.Generic;
using System.Text;
using Codiva.Client;

namespace Codiva.Unity
{
    /// The Editor's active scene, as far as the chip needs it.
    public interface IActiveScene
    {
        /// `Scene.name` ("" for an untitled scene).
        string Name { get; }
        /// `Scene.path` (`Assets/Scenes/Main.unity`; "" for one never saved).
        string Path { get; }
        /// `Scene.isDirty`.
        bool IsDirty { get; }
        /// The root GameObjects' names, in hierarchy order.
        IList<string> Roots { get; }
        /// The names of the other loaded scenes (additive), in order.
        IList<string> OtherLoaded { get; }
    }

    public static class SceneChip
    {
        public const string Kind = "scene";
        /// Root objects named; the rest are counted.
        public const int MaxRoots = 20;
        public const int MaxOtherScenes = 8;

        /// The chip, or null when there is no scene.
        public static ContextChip Of(IActiveScene scene)
        {
            if (scene == null) return null;
            var name = string.IsNullOrEmpty(scene.Name) ? SelectionChip.UntitledScene : SelectionChip.Name(scene.Name);
            var detail = new StringBuilder();
            detail.Append("path: ").Append(string.IsNullOrEmpty(scene.Path) ? "(not saved)" : SelectionChip.Name(scene.Path, keepSlashes: true));
            if (scene.IsDirty) detail.Append(" (unsaved changes)");
            var roots = scene.Roots ?? new List<string>();
            detail.Append("\nroot objects (").Append(roots.Count).Append("): ");
            List(detail, roots, MaxRoots);
            var others = scene.OtherLoaded ?? new List<string>();
            if (others.Count > 0)
            {
                detail.Append("\nalso loaded: ");
                List(detail, others, MaxOtherScenes);
            }
            return new ContextChip { Kind = Kind, Label = name, Detail = detail.ToString() };
        }

        static void List(StringBuilder text, IList<string> names, int max)
        {
            if (names.Count == 0) { text.Append("(none)"); return; }
            for (var i = 0; i < names.Count && i < max; i++)
                text.Append(i == 0 ? "" : ", ").Append(SelectionChip.Name(names[i]));
            if (names.Count > max) text.Append(", … and ").Append(names.Count - max).Append(" more");
        }
    }
}
