// Core's ISelectedObject over Unity's selection: what the "+ Selection" chip says is decided in
// Core (`SelectionChip`, tested); this only reads the active GameObject, its Transform, its
// components and its own settings (active, tag, layer, static, children).
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using UnityEditor;
using UnityEngine;

namespace Codiva.Editor
{
    public sealed class UnitySelection : ISelectedObject
    {
        /// The Editor's active GameObject (in a scene or a prefab asset), or null for none.
        public static UnitySelection Active()
        {
            var obj = Selection.activeGameObject;
            return obj == null ? null : new UnitySelection(obj);
        }

        /// A GameObject dragged onto the panel from the Hierarchy.
        public static UnitySelection Of(GameObject obj) => obj == null ? null : new UnitySelection(obj);

        UnitySelection(GameObject obj)
        {
            var path = AssetDatabase.GetAssetPath(obj);
            AssetPath = path;
            Scene = string.IsNullOrEmpty(path) ? obj.scene.name : null;
            var names = new List<string>();
            for (var t = obj.transform; t != null; t = t.parent) names.Insert(0, t.gameObject.name);
            Hierarchy = names;
            // A missing script is a null component (Unity's == for a destroyed object).
            Components = obj.GetComponents<Component>().Select(c => c == null ? null : c.GetType().Name).ToList();
            var transform = obj.transform;
            Position = Xyz(transform.localPosition);
            Rotation = Xyz(transform.localEulerAngles);
            Scale = Xyz(transform.localScale);
            Properties = new List<KeyValuePair<string, string>>
            {
                SelectionChip.Property("active", obj.activeSelf),
                SelectionChip.Property("active in hierarchy", obj.activeInHierarchy),
                SelectionChip.Property("tag", obj.tag),
                SelectionChip.Property("layer", LayerMask.LayerToName(obj.layer)),
                SelectionChip.Property("static", obj.isStatic),
                SelectionChip.Property("children", transform.childCount),
            };
        }

        static float[] Xyz(Vector3 v) => new[] { v.x, v.y, v.z };

        public string Scene { get; }
        public string AssetPath { get; }
        public IList<string> Hierarchy { get; }
        public IList<string> Components { get; }
        public float[] Position { get; }
        public float[] Rotation { get; }
        public float[] Scale { get; }
        public IList<KeyValuePair<string, string>> Properties { get; }
    }
}
