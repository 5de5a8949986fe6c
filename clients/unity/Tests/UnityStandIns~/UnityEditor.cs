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
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorWindow-titleContent.html
        public GUIContent titleContent { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorWindow.ShowNotification.html
        public void ShowNotification(GUIContent notification) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneView.html (a SearchableEditorWindow)
    public class SceneView : EditorWindow
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneView-lastActiveSceneView.html
        public static SceneView lastActiveSceneView => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneView-camera.html
        public Camera camera => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneView-pivot.html
        public Vector3 pivot { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneView-duringSceneGui.html
        public static event Action<SceneView> duringSceneGui { add => throw null; remove => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneView.RepaintAll.html
        public static void RepaintAll() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/DragAndDrop.html
    public class DragAndDrop
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/DragAndDrop-paths.html
        public static string[] paths { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/DragAndDrop-objectReferences.html
        public static Object[] objectReferences { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/DragAndDrop-visualMode.html
        public static DragAndDropVisualMode visualMode { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/DragAndDrop.AcceptDrag.html
        public static void AcceptDrag() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/DragAndDropVisualMode.html
    public enum DragAndDropVisualMode
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/DragAndDropVisualMode.Copy.html
        Copy = 1,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/HandleUtility.html
    public sealed class HandleUtility
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/HandleUtility.GUIPointToWorldRay.html
        public static Ray GUIPointToWorldRay(Vector2 position) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/HandleUtility.AddDefaultControl.html
        public static void AddDefaultControl(int controlId) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Handles.html
    public sealed class Handles
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Handles-color.html
        public static Color color { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Handles.DrawLine.html
        public static void DrawLine(Vector3 p1, Vector3 p2) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Handles.Label.html
        public static void Label(Vector3 position, string text) => throw null;
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
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorApplication-isCompiling.html
        public static bool isCompiling => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorApplication.Beep.html
        public static void Beep() => throw null;
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
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorPrefs.SetString.html
        public static void SetString(string key, string value) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorPrefs.GetBool.html
        public static bool GetBool(string key, bool defaultValue) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorPrefs.SetBool.html
        public static void SetBool(string key, bool value) => throw null;
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
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.AssetPathToGUID.html
        // (the overload with options)
        public static string AssetPathToGUID(string path, AssetPathToGUIDOptions options) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.DisallowAutoRefresh.html
        public static void DisallowAutoRefresh() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.AllowAutoRefresh.html
        public static void AllowAutoRefresh() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.Refresh.html
        public static void Refresh(ImportAssetOptions options = ImportAssetOptions.Default) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetDatabase.OpenAsset.html
        public static bool OpenAsset(Object target, int lineNumber) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetPathToGUIDOptions.html
    public enum AssetPathToGUIDOptions
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetPathToGUIDOptions.IncludeRecentlyDeletedAssets.html
        IncludeRecentlyDeletedAssets = 0,
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/AssetPathToGUIDOptions.OnlyExistingAssets.html
        OnlyExistingAssets = 1,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/ImportAssetOptions.html
    public enum ImportAssetOptions
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/ImportAssetOptions.Default.html
        Default = 0,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GenericMenu.html
    public sealed class GenericMenu
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GenericMenu.MenuFunction.html
        public delegate void MenuFunction();
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GenericMenu-ctor.html
        public GenericMenu() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GenericMenu.AddItem.html
        public void AddItem(GUIContent content, bool on, MenuFunction func) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GenericMenu.AddDisabledItem.html
        public void AddDisabledItem(GUIContent content, bool on) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GenericMenu.ShowAsContext.html
        public void ShowAsContext() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorUtility.html
    public class EditorUtility
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorUtility.OpenFilePanel.html
        public static string OpenFilePanel(string title, string directory, string extension) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorGUIUtility.html
    public class EditorGUIUtility
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EditorGUIUtility.PingObject.html
        public static void PingObject(Object obj) => throw null;
    }
}

namespace UnityEditor.Compilation
{
    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.CompilationPipeline.html
    public static class CompilationPipeline
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.CompilationPipeline.GetAssemblies.html
        public static Assembly[] GetAssemblies(AssembliesType assembliesType) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.CompilationPipeline.GetAssemblyNameFromScriptPath.html
        public static string GetAssemblyNameFromScriptPath(string sourceFilePath) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.AssembliesType.html
    public enum AssembliesType
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.AssembliesType.Editor.html
        Editor = 0,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.Assembly.html
    public class Assembly
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.Assembly-name.html
        public string name => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.Assembly-sourceFiles.html
        public string[] sourceFiles => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.Assembly-allReferences.html
        public string[] allReferences => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.Assembly-defines.html
        public string[] defines => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.AssemblyBuilder.html
    public class AssemblyBuilder
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.AssemblyBuilder-ctor.html
        public AssemblyBuilder(string assemblyPath, params string[] scriptPaths) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.AssemblyBuilder-additionalReferences.html
        public string[] additionalReferences { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.AssemblyBuilder-additionalDefines.html
        public string[] additionalDefines { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.AssemblyBuilder-referencesOptions.html
        public ReferencesOptions referencesOptions { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.AssemblyBuilder-flags.html
        public AssemblyBuilderFlags flags { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.AssemblyBuilder-buildFinished.html
        public event Action<string, CompilerMessage[]> buildFinished { add => throw null; remove => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.AssemblyBuilder.Build.html
        public bool Build() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.ReferencesOptions.html
    public enum ReferencesOptions
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.ReferencesOptions.None.html
        None = 0,
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.ReferencesOptions.UseEngineModules.html
        UseEngineModules = 1,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.AssemblyBuilderFlags.html
    [Flags]
    public enum AssemblyBuilderFlags
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.AssemblyBuilderFlags.EditorAssembly.html
        EditorAssembly = 1,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.CompilerMessage.html
    public struct CompilerMessage
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.CompilerMessage-message.html
        public string message;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.CompilerMessage-file.html
        public string file;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.CompilerMessage-line.html
        public int line;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.CompilerMessage-column.html
        public int column;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.CompilerMessage-type.html
        public CompilerMessageType type;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.CompilerMessageType.html
    public enum CompilerMessageType
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Compilation.CompilerMessageType.Error.html
        Error = 0,
    }
}

namespace UnityEditor.PackageManager
{
    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/PackageManager.Client.html
    public static class Client
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/PackageManager.Client.Resolve.html
        public static void Resolve() => throw null;
    }
}
