// Extension profiles (Codiva.Unity.ExtensionProfiles): the project's packages read from
// Packages/manifest.json and the embedded packages, the table's profiles they match, their
// instructions after the script gate's in a panel session's create params; end to end, the real
// `claude` gets them in its system prompt.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Client;
using Codiva.Ops;
using Codiva.Protocol;
using Codiva.Rpc;
using Codiva.Unity;
using NUnit.Framework;
using static Codiva.Tests.Script;

namespace Codiva.Tests
{
    [TestFixture]
    public class ExtensionProfileTests
    {
        static void Project(string dir, string manifest)
        {
            Directory.CreateDirectory(Path.Combine(dir, "Packages"));
            File.WriteAllText(Path.Combine(dir, "Packages", "manifest.json"), manifest);
        }

        [Test]
        public void The_projects_packages_are_its_manifests_and_its_embedded_ones()
        {
            using (var dir = new TempDir("codiva-profiles-"))
            {
                Project(dir.Path, "{\"dependencies\":{\"com.unity.render-pipelines.universal\":\"14.0.11\",\"com.unity.inputsystem\":\"1.7.0\",\"com.unity.ugui\":\"1.0.0\"},\"scopedRegistries\":[]}");
                Directory.CreateDirectory(Path.Combine(dir.Path, "Packages", "com.unity.cinemachine"));
                File.WriteAllText(Path.Combine(dir.Path, "Packages", "com.unity.cinemachine", "package.json"), "{\"name\":\"com.unity.cinemachine\",\"version\":\"2.9.7\"}");
                Directory.CreateDirectory(Path.Combine(dir.Path, "Packages", "broken"));
                File.WriteAllText(Path.Combine(dir.Path, "Packages", "broken", "package.json"), "{\"name\":");
                var packages = new ManifestPackages(dir.Path);
                CollectionAssert.AreEquivalent(new[] { "com.unity.render-pipelines.universal", "com.unity.inputsystem", "com.unity.ugui", "com.unity.cinemachine" }, packages.Names);
                // In the table's order, whatever the manifest's.
                Assert.AreEqual(new[] { "Input System", "URP", "Cinemachine" }, ExtensionProfiles.Detect(packages).Select(p => p.Name).ToArray());
                Assert.AreEqual("New sessions are told how to work with: Input System, URP, Cinemachine", ExtensionProfiles.Words(ExtensionProfiles.Detect(packages), Codiva.Panel.Language.En));
                Assert.AreEqual("新しいセッションに伝えるプロジェクトのパッケージはありません", ExtensionProfiles.Words(new Profile[0], Codiva.Panel.Language.Ja));
            }
            using (var dir = new TempDir("codiva-profiles-"))
            {
                // No manifest, an unreadable one, one too large: no package, no profile.
                Assert.AreEqual(0, new ManifestPackages(dir.Path).Names.Count);
                Project(dir.Path, "not json");
                Assert.AreEqual(0, new ManifestPackages(dir.Path).Names.Count);
                Project(dir.Path, "{\"dependencies\":{\"com.unity.inputsystem\":\"1.7.0\"},\"n\":1e999}");
                Assert.AreEqual(0, new ManifestPackages(dir.Path).Names.Count);
                Project(dir.Path, "{\"dependencies\":{\"com.unity.inputsystem\":\"1.7.0\"},\"pad\":\"" + new string('x', (int)ManifestPackages.MaxFileBytes) + "\"}");
                Assert.AreEqual(0, ExtensionProfiles.Detect(new ManifestPackages(dir.Path)).Count);
            }
        }

        [Test]
        public void The_profiles_instructions_follow_the_script_gates()
        {
            using (var ops = new McpServer(new ToolRegistry(), new ToolRunner(new ThreadDispatcher())))
            {
                var profiles = ExtensionProfiles.Known.Where(p => p.Package == "com.unity.inputsystem" || p.Package == "com.unity.textmeshpro").ToList();
                var create = ExtensionProfiles.Apply(PanelSession.Create("hi", "/p", ops), profiles);
                StringAssert.StartsWith(ScriptGate.Instructions(PanelSession.OpsServerName) + "\n\nThe Unity project uses these packages; keep to them:\n- The project has the Input System package", create.AppendSystemPrompt);
                StringAssert.Contains("\n- UI and world text use TextMeshPro", create.AppendSystemPrompt);
                var plain = PanelSession.Create("hi", "/p", ops);
                Assert.AreEqual(plain.AppendSystemPrompt, ExtensionProfiles.Apply(PanelSession.Create("hi", "/p", ops), new Profile[0]).AppendSystemPrompt);
                Assert.AreEqual("", ExtensionProfiles.Instructions(null));
                // Every profile of the table: a package name, words, one paragraph.
                foreach (var profile in ExtensionProfiles.Known)
                {
                    StringAssert.StartsWith("com.unity.", profile.Package);
                    Assert.IsFalse(profile.Instructions.Contains("\n"), profile.Package);
                    StringAssert.Contains(profile.Package, profile.Instructions);
                }
            }
        }

        [Test]
        public void The_agent_is_told_the_profiles_in_its_system_prompt()
        {
            using (var world = new World(Rules(When("last_user_contains", "PROFILES hello", Text("Hello.")))))
            using (var main = new ThreadDispatcher())
            using (var ops = new McpServer(new ToolRegistry(), new ToolRunner(new ThreadDispatcher())))
            {
                ops.Start();
                Project(world.Repo, "{\"dependencies\":{\"com.unity.addressables\":\"1.21.19\"}}");
                var client = new CodivaClient(new DaemonSocketTransportFactory(world.Program()), main);
                try
                {
                    client.Start();
                    Assert.IsTrue(main.WaitUntil(() => client.State == ConnectionState.Connected, TimeSpan.FromSeconds(120)), "the connection");
                    var create = ExtensionProfiles.Apply(PanelSession.Create("PROFILES hello", world.Repo, ops), ExtensionProfiles.Detect(new ManifestPackages(world.Repo)));
                    client.CreateSession(create).Wait();
                    var request = world.Mock.WaitForRequest(b => b.Contains("PROFILES hello"));
                    StringAssert.Contains("Assets are loaded through Addressables", request);
                    StringAssert.Contains("scripts_commit", request, "after the script gate's instructions");
                }
                finally
                {
                    client.Dispose();
                }
            }
        }
    }
}
