// The Unity-bound Ops tools. Each call runs on the main thread (ToolRunner posts it there) as
// one Undo group (merged into the turn's one step by Core's TurnScope), says by interface what
// Undo reverts of it (Ops/ToolEffects.cs: the turn-end note), and reports what it observed, not what it asked for (a Unity API that refuses
// by returning null or false is a failure). Argument handling and the confirm/dry_run gate are
// Ops' (tested there); only the Unity calls live here.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Ops;
using UnityEditor;
using UnityEngine;
using Object = UnityEngine.Object;

namespace Codiva.Editor
{
    public static class UnityTools
    {
        public static void Register(ToolRegistry registry)
        {
            registry.Add(new CreateObject());
            registry.Add(new DestroyObject());
            registry.Add(new AddComponent());
            registry.Add(new ListComponents());
            registry.Add(new FindAssets());
            registry.Add(new DeleteAsset());
            registry.Add(new Screenshot());
            registry.Add(new ExecuteMenu());
            registry.Add(new Select());
        }

        internal static GameObject Find(Dictionary<string, object> args, string name = "path")
        {
            var path = Args.RequireString(args, name);
            var found = GameObject.Find(path);
            if (found == null) throw new ToolError("no active GameObject at " + path);
            return found;
        }

        internal static string PathOf(GameObject obj) =>
            obj.transform.parent == null ? obj.name : PathOf(obj.transform.parent.gameObject) + "/" + obj.name;

        /// Runs `body` as one Undo group named after the tool.
        internal static ToolResult InUndoGroup(string tool, Func<ToolResult> body)
        {
            Undo.IncrementCurrentGroup();
            var group = Undo.GetCurrentGroup();
            Undo.SetCurrentGroupName("codiva: " + tool);
            try { return body(); }
            finally { Undo.CollapseUndoOperations(group); }
        }
    }

    public abstract class UnityTool : ITool, IRevertedByUndo
    {
        public abstract string Name { get; }
        public abstract string Module { get; }
        public abstract string Description { get; }
        public abstract Dictionary<string, object> InputSchema { get; }
        public ThreadAffinity Affinity => ThreadAffinity.MainThread;
        public bool Destructive => false;
        protected abstract ToolResult Run(Dictionary<string, object> args);
        public ToolResult Call(Dictionary<string, object> args) => UnityTools.InUndoGroup(Name, () => Run(args));
    }

    sealed class CreateObject : UnityTool
    {
        public override string Name => "scene_create_object";
        public override string Module => "scene";
        public override string Description => "Creates an empty GameObject in the open scene (optionally under a parent path).";
        public override Dictionary<string, object> InputSchema => Args.Schema("name", "string", "the new object's name", "parent", "string", "hierarchy path of the parent").Require("name");
        protected override ToolResult Run(Dictionary<string, object> args)
        {
            var obj = new GameObject(Args.RequireString(args, "name"));
            Undo.RegisterCreatedObjectUndo(obj, "create " + obj.name);
            if (args.ContainsKey("parent")) Undo.SetTransformParent(obj.transform, UnityTools.Find(args, "parent").transform, "reparent");
            return ToolResult.Text("created " + UnityTools.PathOf(obj));
        }
    }

    sealed class DestroyObject : DestructiveTool, IRevertedByUndo
    {
        public override string Name => "scene_destroy_object";
        public override string Module => "scene";
        public override string Description => "Destroys a GameObject and its children (undoable; needs confirm:true).";
        protected override Dictionary<string, object> Arguments => Args.Schema("path", "string", "hierarchy path").Require("path");
        protected override string Preview(Dictionary<string, object> args)
        {
            var obj = UnityTools.Find(args);
            return "destroy " + UnityTools.PathOf(obj) + " and its " + (obj.GetComponentsInChildren<Transform>(true).Length - 1) + " descendants";
        }
        protected override ToolResult Execute(Dictionary<string, object> args) => UnityTools.InUndoGroup(Name, () =>
        {
            var obj = UnityTools.Find(args);
            var path = UnityTools.PathOf(obj);
            Undo.DestroyObjectImmediate(obj);
            return ToolResult.Text("destroyed " + path);
        });
    }

    sealed class AddComponent : UnityTool
    {
        public override string Name => "component_add";
        public override string Module => "scene";
        public override string Description => "Adds a component (by type name) to a GameObject.";
        public override Dictionary<string, object> InputSchema => Args.Schema("path", "string", "hierarchy path", "type", "string", "component type name, e.g. Rigidbody").Require("path", "type");
        protected override ToolResult Run(Dictionary<string, object> args)
        {
            var obj = UnityTools.Find(args);
            var typeName = Args.RequireString(args, "type");
            var type = TypeCache.GetTypesDerivedFrom<Component>().FirstOrDefault(t => t.Name == typeName || t.FullName == typeName);
            if (type == null) throw new ToolError("no component type " + typeName);
            var added = Undo.AddComponent(obj, type);
            if (added == null) throw new ToolError("Unity refused to add " + typeName + " to " + UnityTools.PathOf(obj));
            return ToolResult.Text("added " + type.Name + " to " + UnityTools.PathOf(obj));
        }
    }

    sealed class ListComponents : UnityTool, IChangesNothing
    {
        public override string Name => "component_list";
        public override string Module => "scene";
        public override string Description => "Lists a GameObject's components.";
        public override Dictionary<string, object> InputSchema => Args.Schema("path", "string", "hierarchy path").Require("path");
        protected override ToolResult Run(Dictionary<string, object> args) =>
            ToolResult.Text(string.Join("\n", UnityTools.Find(args).GetComponents<Component>().Select(c => c == null ? "(missing script)" : c.GetType().Name)));
    }

    sealed class FindAssets : UnityTool, IChangesNothing
    {
        public override string Name => "asset_find";
        public override string Module => "assets";
        public override string Description => "Finds assets with an AssetDatabase search filter (e.g. \"t:Material player\").";
        public override Dictionary<string, object> InputSchema => Args.Schema("filter", "string", "AssetDatabase.FindAssets filter").Require("filter");
        protected override ToolResult Run(Dictionary<string, object> args) =>
            ToolResult.Text(string.Join("\n", AssetDatabase.FindAssets(Args.RequireString(args, "filter")).Take(200).Select(AssetDatabase.GUIDToAssetPath)));
    }

    sealed class DeleteAsset : DestructiveTool, IChangesOutsideUndo
    {
        public override string Name => "asset_delete";
        public override string Module => "assets";
        public override string Description => "Deletes an asset or folder (NOT undoable; needs confirm:true).";
        protected override Dictionary<string, object> Arguments => Args.Schema("path", "string", "asset path under Assets/").Require("path");

        static string PathOf(Dictionary<string, object> args)
        {
            var path = Args.RequireString(args, "path");
            if (!path.StartsWith("Assets/", StringComparison.Ordinal) || path.Contains("..")) throw new ToolError("`path` must be under Assets/");
            if (string.IsNullOrEmpty(AssetDatabase.AssetPathToGUID(path))) throw new ToolError("no asset " + path);
            return path;
        }

        protected override string Preview(Dictionary<string, object> args)
        {
            var path = PathOf(args);
            return AssetDatabase.IsValidFolder(path)
                ? "delete the folder " + path + " with " + AssetDatabase.FindAssets("", new[] { path }).Length + " assets (not undoable)"
                : "delete " + path + " (" + AssetDatabase.GetMainAssetTypeAtPath(path)?.Name + ", not undoable)";
        }

        protected override ToolResult Execute(Dictionary<string, object> args)
        {
            var path = PathOf(args);
            if (!AssetDatabase.DeleteAsset(path)) throw new ToolError("Unity did not delete " + path);
            return ToolResult.Text("deleted " + path);
        }
    }

    sealed class Screenshot : UnityTool, IChangesNothing
    {
        public override string Name => "editor_screenshot";
        public override string Module => "editor";
        public override string Description => "Captures the Scene view (or the main camera with view:\"game\") as a PNG image.";
        public override Dictionary<string, object> InputSchema => Args.Schema("view", "string", "\"scene\" (default) or \"game\"");
        protected override ToolResult Run(Dictionary<string, object> args)
        {
            var camera = Codiva.Json.JsonRead.Str(args, "view") == "game" ? Camera.main : SceneView.lastActiveSceneView?.camera;
            if (camera == null) throw new ToolError("no camera to capture (open a Scene view, or tag a Main Camera)");
            const int width = 1280, height = 720;
            var target = new RenderTexture(width, height, 24);
            var previous = camera.targetTexture;
            var active = RenderTexture.active;
            var texture = new Texture2D(width, height, TextureFormat.RGB24, false);
            try
            {
                camera.targetTexture = target;
                camera.Render();
                RenderTexture.active = target;
                texture.ReadPixels(new Rect(0, 0, width, height), 0, 0);
                texture.Apply();
                return new ToolResult().AddImage("image/png", texture.EncodeToPNG());
            }
            finally
            {
                camera.targetTexture = previous;
                RenderTexture.active = active;
                Object.DestroyImmediate(texture);
                Object.DestroyImmediate(target);
            }
        }
    }

    sealed class ExecuteMenu : UnityTool, IChangesOutsideUndo
    {
        public override string Name => "editor_execute_menu";
        public override string Module => "editor";
        public override string Description => "Runs an Editor menu item by its path (e.g. \"GameObject/3D Object/Cube\").";
        public override Dictionary<string, object> InputSchema => Args.Schema("path", "string", "menu item path").Require("path");
        protected override ToolResult Run(Dictionary<string, object> args)
        {
            var path = Args.RequireString(args, "path");
            if (!EditorApplication.ExecuteMenuItem(path)) throw new ToolError("no menu item " + path + " (or it is disabled)");
            return ToolResult.Text("ran " + path);
        }
    }

    sealed class Select : UnityTool, IChangesNothing
    {
        public override string Name => "editor_select";
        public override string Module => "editor";
        public override string Description => "Selects GameObjects (hierarchy paths) or assets (Assets/… paths) in the Editor.";
        public override Dictionary<string, object> InputSchema => new Dictionary<string, object>
        {
            { "type", "object" },
            { "properties", new Dictionary<string, object> { { "paths", new Dictionary<string, object> { { "type", "array" }, { "items", new Dictionary<string, object> { { "type", "string" } } } } } } },
            { "required", new List<object> { "paths" } },
        };
        protected override ToolResult Run(Dictionary<string, object> args)
        {
            var paths = (Codiva.Json.JsonRead.Arr(args, "paths") ?? new List<object>()).OfType<string>().ToList();
            var found = paths.Select(p => p.StartsWith("Assets/", StringComparison.Ordinal) ? AssetDatabase.LoadMainAssetAtPath(p) : GameObject.Find(p)).ToList();
            var missing = paths.Where((p, i) => found[i] == null).ToList();
            if (missing.Count > 0) throw new ToolError("not found: " + string.Join(", ", missing));
            Selection.objects = found.ToArray();
            return ToolResult.Text("selected " + Selection.objects.Length + " objects");
        }
    }
}
