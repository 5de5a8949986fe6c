// Stand-ins for the part of UnityEditor that Editor/*.cs calls (see UnityEngine.cs for what these
// are and why this folder is never compiled by Unity). Each member names the Scripting Reference
// page (2022.3) whose signature it copies.
using System;
using System.Collections;
using System.Collections.Generic;
using UnityEngine;
using Object = UnityEngine.Object;

namespace UnityEditor
{
    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/InitializeOnLoadAttribute.html
    [AttributeUsage(AttributeTargets.Class)]
    public class InitializeOnLoadAttribute : Attribute
    {
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/MenuItem.html
    [AttributeUsage(AttributeTargets.Method, AllowMultiple = true)]
    public sealed class MenuItem : Attribute
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/MenuItem-ctor.html
        public MenuItem(string itemName) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorWindow.html
    public class EditorWindow : ScriptableObject
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorWindow.GetWindow.html
        public static T GetWindow<T>(string title) where T : EditorWindow => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorWindow-rootVisualElement.html
        public UnityEngine.UIElements.VisualElement rootVisualElement => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneView.html (a SearchableEditorWindow)
    public class SceneView : EditorWindow
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneView-lastActiveSceneView.html
        public static SceneView lastActiveSceneView => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneView-camera.html
        public Camera camera => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorApplication.html
    public sealed class EditorApplication
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorApplication.CallbackFunction.html
        public delegate void CallbackFunction();
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorApplication-update.html
        // (a public static delegate field, not an event)
        public static CallbackFunction update;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorApplication-quitting.html
        public static event Action quitting { add => throw null; remove => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorApplication.ExecuteMenuItem.html
        public static bool ExecuteMenuItem(string menuItemPath) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssemblyReloadEvents.html
    public static class AssemblyReloadEvents
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssemblyReloadEvents.AssemblyReloadCallback.html
        public delegate void AssemblyReloadCallback();
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssemblyReloadEvents-beforeAssemblyReload.html
        public static event AssemblyReloadCallback beforeAssemblyReload { add => throw null; remove => throw null; }
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorPrefs.html
    public class EditorPrefs
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorPrefs.GetString.html
        public static string GetString(string key, string defaultValue) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SessionState.html
    public class SessionState
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SessionState.GetString.html
        public static string GetString(string key, string defaultValue) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SessionState.SetString.html
        public static void SetString(string key, string value) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SessionState.GetInt.html
        public static int GetInt(string key, int defaultValue) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SessionState.SetInt.html
        public static void SetInt(string key, int value) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Selection.html
    public class Selection
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Selection-objects.html
        public static Object[] objects { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Selection-activeGameObject.html
        public static GameObject activeGameObject { get => throw null; set => throw null; }
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Undo.html
    public class Undo
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Undo.IncrementCurrentGroup.html
        public static void IncrementCurrentGroup() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Undo.GetCurrentGroup.html
        public static int GetCurrentGroup() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Undo.SetCurrentGroupName.html
        public static void SetCurrentGroupName(string name) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Undo.CollapseUndoOperations.html
        public static void CollapseUndoOperations(int groupIndex) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Undo.RegisterCreatedObjectUndo.html
        public static void RegisterCreatedObjectUndo(Object objectToUndo, string name) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Undo.SetTransformParent.html
        public static void SetTransformParent(Transform transform, Transform newParent, string name) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Undo.DestroyObjectImmediate.html
        public static void DestroyObjectImmediate(Object objectToUndo) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Undo.AddComponent.html
        public static Component AddComponent(GameObject gameObject, Type type) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/TypeCache.html
    public static class TypeCache
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/TypeCache.GetTypesDerivedFrom.html
        public static TypeCollection GetTypesDerivedFrom<T>() => throw null;

        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/TypeCache.TypeCollection.html
        // (an IList<Type>, ICollection<Type>, IEnumerable<Type>, IList, ICollection, IEnumerable; the
        // code only enumerates it through LINQ, i.e. as IEnumerable<Type>: its own GetEnumerator,
        // which returns TypeCache.TypeCollection.Enumerator, is not called and not declared)
        public struct TypeCollection : IEnumerable<Type>
        {
            IEnumerator<Type> IEnumerable<Type>.GetEnumerator() => throw null;
            IEnumerator IEnumerable.GetEnumerator() => throw null;
        }
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.html
    public sealed class AssetDatabase
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.FindAssets.html
        public static string[] FindAssets(string filter) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.FindAssets.html
        public static string[] FindAssets(string filter, string[] searchInFolders) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.GUIDToAssetPath.html
        public static string GUIDToAssetPath(string guid) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.AssetPathToGUID.html
        public static string AssetPathToGUID(string path) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.IsValidFolder.html
        public static bool IsValidFolder(string path) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.GetMainAssetTypeAtPath.html
        public static Type GetMainAssetTypeAtPath(string assetPath) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.DeleteAsset.html
        public static bool DeleteAsset(string path) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.LoadMainAssetAtPath.html
        public static Object LoadMainAssetAtPath(string assetPath) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.GetAssetPath.html
        public static string GetAssetPath(Object assetObject) => throw null;
    }
}
