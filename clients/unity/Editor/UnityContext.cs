// Core's Unity interfaces over the Editor's API, one call each: the active scene (`IActiveScene`),
// whether an asset exists (`IAssetIndex`), the Undo group of a turn (`IUndo`) and the Asset
// Database's automatic import (`IAssetRefresh`). What they mean to the panel — chips, links, turns
// — is decided and tested in Core (`Core/Unity`).
using System.Collections.Generic;
using System.Linq;
using Codiva.Unity;
using UnityEditor;
using UnityEngine.SceneManagement;

namespace Codiva.Editor
{
    public sealed class UnityActiveScene : IActiveScene
    {
        public UnityActiveScene()
        {
            var scene = SceneManager.GetActiveScene();
            Name = scene.name;
            Path = scene.path;
            IsDirty = scene.isDirty;
            Roots = scene.GetRootGameObjects().Select(root => root.name).ToList();
            OtherLoaded = Enumerable.Range(0, SceneManager.sceneCount).Select(SceneManager.GetSceneAt)
                .Where(other => other.isLoaded && other != scene).Select(other => other.name).ToList();
        }

        public string Name { get; }
        public string Path { get; }
        public bool IsDirty { get; }
        public IList<string> Roots { get; }
        public IList<string> OtherLoaded { get; }
    }

    public sealed class UnityAssetIndex : IAssetIndex
    {
        public bool Exists(string path) => !string.IsNullOrEmpty(AssetDatabase.AssetPathToGUID(path, AssetPathToGUIDOptions.OnlyExistingAssets));

        /// Opens a linked asset (at its line, for a script) and pings it in the Project window.
        public static void Open(AssetLink link)
        {
            var asset = AssetDatabase.LoadMainAssetAtPath(link.Path);
            if (asset == null) return;
            EditorGUIUtility.PingObject(asset);
            AssetDatabase.OpenAsset(asset, link.Line);
        }
    }

    public sealed class UnityUndo : IUndo
    {
        public int Begin(string name)
        {
            Undo.IncrementCurrentGroup();
            Undo.SetCurrentGroupName(name);
            return Undo.GetCurrentGroup();
        }

        public void Collapse(int group, string name)
        {
            Undo.SetCurrentGroupName(name);
            Undo.CollapseUndoOperations(group);
        }
    }

    public sealed class UnityAssetRefresh : IAssetRefresh
    {
        public void Disallow() => AssetDatabase.DisallowAutoRefresh();
        public void Allow() => AssetDatabase.AllowAutoRefresh();
        public void Refresh() => AssetDatabase.Refresh();
    }
}
