// Stand-ins for the part of UnityEngine that Editor/*.cs calls, so run-tests.sh can compile
// Editor/ without Unity (README, "Tests"). Declarations only: no body is ever run (each is
// `throw null`), and nothing is here that Editor/ does not call. Each member names the page of
// Unity's Scripting Reference (2022.3, the package's oldest version) whose signature it copies;
// a base class the code never names is left out (its members are declared where the code uses
// them). This checks our code against our reading of those pages, not against Unity.
//
// This folder's name ends with `~`: Unity ignores, during import, "files and folders which end
// with '~'" (Unity Manual, Special folder names, "Hidden Assets":
// https://docs.unity3d.com/2022.3/Documentation/Manual/SpecialFolders.html), so a project that
// installs the package never compiles these (they would clash with the real UnityEngine) — not
// into Codiva.Tests either, whose asmdef (Tests/) takes the scripts of its subfolders: these are
// not scripts to Unity. Packages ship `Samples~` and `Documentation~` the same way (Package layout:
// https://docs.unity3d.com/2022.3/Documentation/Manual/cus-layout.html). They get no .meta file
// (make-meta.sh and run-tests.sh skip `~` names likewise).
using System;

namespace UnityEngine
{
    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Object.html
    public class Object
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Object-name.html
        public string name { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Object.DestroyImmediate.html
        public static void DestroyImmediate(Object obj) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Object-operator_eq.html
        // (a destroyed object, or a missing script's component, equals null)
        public static bool operator ==(Object x, Object y) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Object-operator_ne.html
        public static bool operator !=(Object x, Object y) => throw null;
        // Object overrides both, as a class with == must (C# warnings CS0660/CS0661).
        public override bool Equals(object other) => throw null;
        public override int GetHashCode() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/ScriptableObject.html
    // (the base of EditorWindow)
    public class ScriptableObject : Object
    {
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GameObject.html
    public sealed class GameObject : Object
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GameObject-ctor.html
        public GameObject(string name) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GameObject-transform.html
        public Transform transform => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GameObject-scene.html
        public SceneManagement.Scene scene => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GameObject.Find.html
        public static GameObject Find(string name) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GameObject.GetComponents.html
        public T[] GetComponents<T>() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GameObject.GetComponentsInChildren.html
        public T[] GetComponentsInChildren<T>(bool includeInactive) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GameObject-activeSelf.html
        public bool activeSelf => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GameObject-activeInHierarchy.html
        public bool activeInHierarchy => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GameObject-tag.html
        public string tag { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GameObject-layer.html
        public int layer { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GameObject-isStatic.html
        public bool isStatic { get => throw null; set => throw null; }
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/LayerMask.html
    public struct LayerMask
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/LayerMask.LayerToName.html
        public static string LayerToName(int layer) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Component.html
    public class Component : Object
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Component-gameObject.html
        public GameObject gameObject => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Transform.html
    public class Transform : Component
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Transform-parent.html
        public Transform parent { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Transform-localPosition.html
        public Vector3 localPosition { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Transform-localEulerAngles.html
        public Vector3 localEulerAngles { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Transform-localScale.html
        public Vector3 localScale { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Transform-childCount.html
        public int childCount => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Vector3.html
    public struct Vector3
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Vector3-x.html
        public float x;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Vector3-y.html
        public float y;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Vector3-z.html
        public float z;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Vector3-ctor.html
        public Vector3(float x, float y, float z) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Vector2.html
    public struct Vector2
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Vector2-x.html
        public float x;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Vector2-y.html
        public float y;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Ray.html
    public struct Ray
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Ray-origin.html
        public Vector3 origin { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Ray-direction.html
        public Vector3 direction { get => throw null; set => throw null; }
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Event.html
    public sealed class Event
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Event-current.html
        public static Event current { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Event-type.html
        public EventType type { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Event-button.html
        public int button { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Event-mousePosition.html
        public Vector2 mousePosition { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Event.Use.html
        public void Use() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EventType.html
    public enum EventType
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EventType.MouseDown.html
        MouseDown = 0,
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EventType.MouseUp.html
        MouseUp = 1,
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/EventType.MouseDrag.html
        MouseDrag = 3,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GUIUtility.html
    public class GUIUtility
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GUIUtility.GetControlID.html
        public static int GetControlID(FocusType focus) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/FocusType.html
    public enum FocusType
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/FocusType.Passive.html
        Passive = 2,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/RuntimePlatform.html
    public enum RuntimePlatform
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/RuntimePlatform.OSXEditor.html
        OSXEditor = 0,
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/RuntimePlatform.WindowsEditor.html
        WindowsEditor = 7,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Input.html
    public class Input
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Input-compositionString.html
        public static string compositionString => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Color.html
    public struct Color
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Color-yellow.html
        public static Color yellow => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Color-cyan.html
        public static Color cyan => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Rect.html
    public struct Rect
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Rect-ctor.html
        public Rect(float x, float y, float width, float height) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Camera.html (a Behaviour)
    public sealed class Camera : Component
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Camera-main.html
        public static Camera main => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Camera-targetTexture.html
        public RenderTexture targetTexture { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Camera.Render.html
        public void Render() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/RenderTexture.html (a Texture)
    public class RenderTexture : Object
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/RenderTexture-ctor.html
        public RenderTexture(int width, int height, int depth) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/RenderTexture-active.html
        public static RenderTexture active { get => throw null; set => throw null; }
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Texture.html
    public class Texture : Object
    {
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Texture2D.html (a Texture)
    public sealed class Texture2D : Texture
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Texture2D-ctor.html
        public Texture2D(int width, int height) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Texture2D-ctor.html
        public Texture2D(int width, int height, TextureFormat textureFormat, bool mipChain) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Texture2D.ReadPixels.html
        public void ReadPixels(Rect source, int destX, int destY) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Texture2D.Apply.html
        public void Apply() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/ImageConversion.html
    public static class ImageConversion
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/ImageConversion.EncodeToPNG.html
        public static byte[] EncodeToPNG(this Texture2D tex) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/ImageConversion.LoadImage.html
        public static bool LoadImage(this Texture2D tex, byte[] data) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/TextureFormat.html
    public enum TextureFormat
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/TextureFormat.RGB24.html
        RGB24 = 3,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Application.html
    public static class Application
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Application-dataPath.html
        public static string dataPath => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Application-systemLanguage.html
        public static SystemLanguage systemLanguage => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Application-logMessageReceivedThreaded.html
        public static event LogCallback logMessageReceivedThreaded { add => throw null; remove => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Application.OpenURL.html
        public static void OpenURL(string url) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Application-platform.html
        public static RuntimePlatform platform => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Application.LogCallback.html
        public delegate void LogCallback(string condition, string stackTrace, LogType type);
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GUIContent.html
    public class GUIContent
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GUIContent-ctor.html
        public GUIContent(string text) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/GUIContent-ctor.html
        public GUIContent(string text, string tooltip) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/KeyCode.html
    // (the code only casts it to its number, which Core's ComposerKeys reads: no member is named)
    public enum KeyCode
    {
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SystemLanguage.html
    // (the code only takes its name, which Core's Strings.FromSystemLanguage reads: no member is named)
    public enum SystemLanguage
    {
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/LogType.html
    public enum LogType
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/LogType.Error.html
        Error = 0,
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/LogType.Exception.html
        Exception = 4,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Debug.html
    public static class Debug
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Debug.LogException.html
        public static void LogException(Exception exception) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/Debug.LogWarning.html
        public static void LogWarning(object message) => throw null;
    }
}

namespace UnityEngine.SceneManagement
{
    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneManagement.Scene.html
    public struct Scene
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneManagement.Scene-name.html
        public string name { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneManagement.Scene-path.html
        public string path => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneManagement.Scene-isDirty.html
        public bool isDirty => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneManagement.Scene-isLoaded.html
        public bool isLoaded => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneManagement.Scene.GetRootGameObjects.html
        public GameObject[] GetRootGameObjects() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneManagement.Scene-operator_eq.html
        public static bool operator ==(Scene lhs, Scene rhs) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneManagement.Scene-operator_ne.html
        public static bool operator !=(Scene lhs, Scene rhs) => throw null;
        // Scene overrides both, as a struct with == must (C# warnings CS0660/CS0661).
        public override bool Equals(object other) => throw null;
        public override int GetHashCode() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneManagement.SceneManager.html
    public class SceneManager
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneManagement.SceneManager.GetActiveScene.html
        public static Scene GetActiveScene() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneManagement.SceneManager-sceneCount.html
        public static int sceneCount => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/SceneManagement.SceneManager.GetSceneAt.html
        public static Scene GetSceneAt(int index) => throw null;
    }
}
