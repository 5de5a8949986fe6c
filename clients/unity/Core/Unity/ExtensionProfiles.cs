// Extension profiles: what the agent is told about the packages the project uses. The Agent
// Panel detects SDKs and puts instruction snippets in the system prompt; here the project's
// packages (IPackageList — the Editor's: `Packages/manifest.json`'s dependencies and the
// packages embedded under `Packages/`, read by ManifestPackages) are matched against a fixed table
// of Unity packages whose presence changes how code is written (the Input System, URP, HDRP,
// TextMeshPro, Cinemachine, Addressables, Netcode, the Test Framework), and a panel session is
// created with their snippets after the script gate's instructions. The table is ours, written
// here and reviewed with the code: no snippet comes from the project or the network. The
// project's own profiles, which do, are ProjectProfiles' (sent only once the user approved their
// text).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using Codiva.Json;
using Codiva.Protocol;

namespace Codiva.Unity
{
    /// The project's packages, by name (`com.unity.inputsystem`).
    public interface IPackageList
    {
        IReadOnlyCollection<string> Names { get; }
    }

    /// The packages of a Unity project: `Packages/manifest.json`'s `dependencies` and each
    /// folder under `Packages/` with a `package.json` naming a package (an embedded package).
    /// A file that cannot be read adds nothing (the panel works without profiles).
    public sealed class ManifestPackages : IPackageList
    {
        public const long MaxFileBytes = 1024 * 1024;
        readonly HashSet<string> names = new HashSet<string>(StringComparer.Ordinal);

        public ManifestPackages(string projectDir)
        {
            var packages = Path.Combine(projectDir, "Packages");
            foreach (var name in Read(Path.Combine(packages, "manifest.json"), root => (JsonRead.Get(root, "dependencies") as Dictionary<string, object>)?.Keys))
                names.Add(name);
            if (!Directory.Exists(packages)) return;
            foreach (var dir in Directory.GetDirectories(packages))
                foreach (var name in Read(Path.Combine(dir, "package.json"), root => JsonRead.Str(root, "name") is string n ? new[] { n } : null))
                    names.Add(name);
        }

        public IReadOnlyCollection<string> Names => names;

        static IEnumerable<string> Read(string file, Func<object, IEnumerable<string>> names)
        {
            try
            {
                if (!File.Exists(file) || new FileInfo(file).Length > MaxFileBytes) return new string[0];
                return (names(JsonText.Parse(File.ReadAllText(file))) ?? new string[0]).Where(n => !string.IsNullOrEmpty(n)).ToList();
            }
            catch (Exception e) when (e is IOException || e is UnauthorizedAccessException || e is JsonException) { return new string[0]; }
        }
    }

    public sealed class Profile
    {
        public string Package;
        /// What the panel lists (`Input System`).
        public string Name;
        /// What the agent is told (English, one paragraph).
        public string Instructions;
    }

    public static class ExtensionProfiles
    {
        public static readonly Profile[] Known =
        {
            new Profile { Package = "com.unity.inputsystem", Name = "Input System",
                Instructions = "The project has the Input System package (com.unity.inputsystem): read input through UnityEngine.InputSystem (InputAction, Keyboard.current, …); the legacy UnityEngine.Input works only if Project Settings > Player > Active Input Handling allows it, so check that before using it." },
            new Profile { Package = "com.unity.render-pipelines.universal", Name = "URP",
                Instructions = "The project renders with the Universal Render Pipeline (com.unity.render-pipelines.universal): materials use URP shaders (Universal Render Pipeline/Lit, …), not the Built-in Standard shader, and per-camera settings live in UniversalAdditionalCameraData." },
            new Profile { Package = "com.unity.render-pipelines.high-definition", Name = "HDRP",
                Instructions = "The project renders with the High Definition Render Pipeline (com.unity.render-pipelines.high-definition): materials use HDRP shaders (HDRP/Lit, …), lighting and post-processing are Volume overrides, and per-camera settings live in HDAdditionalCameraData." },
            new Profile { Package = "com.unity.textmeshpro", Name = "TextMeshPro",
                Instructions = "UI and world text use TextMeshPro (com.unity.textmeshpro): TMPro.TextMeshProUGUI in a Canvas and TMPro.TextMeshPro in the world, not UnityEngine.UI.Text." },
            new Profile { Package = "com.unity.cinemachine", Name = "Cinemachine",
                Instructions = "Cameras are driven by Cinemachine (com.unity.cinemachine): change the Cinemachine cameras (their priority, follow and look-at targets), not the Main Camera's transform, which the Cinemachine brain overwrites; the component names differ between Cinemachine 2 and 3, so check the version in Packages/manifest.json." },
            new Profile { Package = "com.unity.addressables", Name = "Addressables",
                Instructions = "Assets are loaded through Addressables (com.unity.addressables, UnityEngine.AddressableAssets): load them by address or AssetReference and release what was loaded; do not move addressable assets into Resources/ or load them with Resources.Load." },
            new Profile { Package = "com.unity.netcode.gameobjects", Name = "Netcode for GameObjects",
                Instructions = "Multiplayer uses Netcode for GameObjects (com.unity.netcode.gameobjects): networked objects have a NetworkObject, their scripts derive from NetworkBehaviour, state goes in NetworkVariables and calls across the network are RPCs; only the server spawns networked objects." },
            new Profile { Package = "com.unity.test-framework", Name = "Test Framework",
                Instructions = "Tests use the Unity Test Framework (com.unity.test-framework, NUnit): Edit Mode and Play Mode tests live in their own test assemblies (an .asmdef referencing the test runner), and Play Mode tests that wait are [UnityTest] coroutines." },
        };

        /// The profiles of the project's packages, in the table's order.
        public static List<Profile> Detect(IPackageList packages)
        {
            var names = packages?.Names ?? new string[0];
            return Known.Where(p => names.Contains(p.Package)).ToList();
        }

        /// What the settings say of `profiles` (plain).
        public static string Words(IEnumerable<Profile> profiles, Codiva.Panel.Language language)
        {
            var names = (profiles ?? new Profile[0]).Select(p => p.Name).ToList();
            return names.Count == 0
                ? Codiva.Panel.Strings.Get(Codiva.Panel.Str.ProfilesNone, language)
                : Codiva.Panel.Strings.Format(Codiva.Panel.Str.ProfilesTold, language, string.Join(", ", names));
        }

        /// The instructions of `profiles` as one block (empty for none).
        public static string Instructions(IEnumerable<Profile> profiles)
        {
            var list = (profiles ?? new Profile[0]).ToList();
            if (list.Count == 0) return "";
            var text = new StringBuilder("The Unity project uses these packages; keep to them:");
            foreach (var profile in list) text.Append("\n- ").Append(profile.Instructions);
            return text.ToString();
        }

        /// `create` with the profiles' instructions after what it already appends (the script
        /// gate's); the same params, for chaining.
        public static CreateParams Apply(CreateParams create, IEnumerable<Profile> profiles) => create.AppendInstructions(Instructions(profiles));
    }
}
