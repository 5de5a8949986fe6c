// What a new panel session is given (Codiva.Ops.PanelSession.Create with PanelSessionInputs):
// the script gate's instructions first, then uLoop's lines, the extension profiles, the Unity
// plugin's lines and the approved project profiles, in that order, each only when its feature
// gives something; the gate's refusals always; allowed in advance only what the uLoop preset
// adds when it is on; and the images.
using System.Collections.Generic;
using System.Linq;
using Codiva.Ops;
using Codiva.Protocol;
using Codiva.Unity;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class PanelSessionCreateTests
    {
        static readonly UloopPresence Usable = new UloopPresence { Package = true, Cli = "/usr/local/bin/uloop" };
        static readonly Profile[] Extension = { ExtensionProfiles.Known[0], ExtensionProfiles.Known[1] };
        static readonly ProjectProfile[] Approved =
        {
            new ProjectProfile { File = "style.json", Name = "House style", Instructions = "Prefix private fields with m_.", State = ProjectProfileState.Approved },
            new ProjectProfile { File = "new.json", Name = "Not approved", Instructions = "NEVER SENT", State = ProjectProfileState.New },
        };

        static PanelSessionInputs Everything(bool preset) => new PanelSessionInputs
        {
            Uloop = Usable,
            UloopPreset = preset,
            ExtensionProfiles = Extension,
            UnityPluginInstalled = true,
            ProjectProfiles = Approved,
            Images = new List<ImageInput> { new ImageInput { MediaType = "image/png", Data = "AAAA" } },
        };

        static void WithOps(System.Action<McpServer> test)
        {
            using (var unity = new Codiva.Client.ThreadDispatcher("unity-main"))
            using (var ops = new McpServer(new ToolRegistry(), new ToolRunner(unity)))
                test(ops);
        }

        [Test]
        public void The_instructions_come_in_the_features_order_after_the_gates()
        {
            WithOps(ops =>
            {
                var create = PanelSession.Create("hi", "/p", ops, Everything(preset: true));
                var blocks = new[]
                {
                    ScriptGate.Instructions(PanelSession.OpsServerName),
                    Uloop.Steering(true),
                    ExtensionProfiles.Instructions(Extension),
                    UnityPlugin.Steering,
                    "The project's own instructions (files under .codiva-profiles/, each read and approved by the user):\n\n## House style\nPrefix private fields with m_.",
                };
                Assert.AreEqual(string.Join("\n\n", blocks), create.AppendSystemPrompt);
                StringAssert.DoesNotContain("NEVER SENT", create.AppendSystemPrompt, "only approved profiles");
                Assert.AreEqual("hi", create.Prompt);
                Assert.AreEqual("/p", create.InPlace);
                Assert.AreEqual("AAAA", create.Images.Single().Data);
                Assert.AreEqual(Known.ApprovalPolicy.Ask, create.ApprovalPolicy.Mode);

                // Each feature that gives nothing leaves its place out, the others keep their order.
                var some = Everything(preset: false);
                some.Uloop = new UloopPresence { Package = true };
                some.UnityPluginInstalled = false;
                Assert.AreEqual(string.Join("\n\n", blocks[0], blocks[2], blocks[4]), PanelSession.Create("hi", "/p", ops, some).AppendSystemPrompt);
                Assert.AreEqual(blocks[0] + "\n\n" + Uloop.Steering(false), PanelSession.Create("hi", "/p", ops, new PanelSessionInputs { Uloop = Usable }).AppendSystemPrompt);
                Assert.AreEqual(blocks[0], PanelSession.Create("hi", "/p", ops, new PanelSessionInputs()).AppendSystemPrompt);
                Assert.AreEqual(blocks[0], PanelSession.Create("hi", "/p", ops, null).AppendSystemPrompt);
            });
        }

        [Test]
        public void The_gates_refusals_stay_and_only_the_uloop_preset_allows_in_advance()
        {
            WithOps(ops =>
            {
                var on = PanelSession.Create("hi", "/p", ops, Everything(preset: true));
                CollectionAssert.AreEqual(ScriptGate.DisallowedTools, on.DisallowedTools);
                CollectionAssert.AreEqual(Uloop.PresetRules, on.AllowedTools);
                var off = PanelSession.Create("hi", "/p", ops, Everything(preset: false));
                CollectionAssert.AreEqual(ScriptGate.DisallowedTools, off.DisallowedTools);
                Assert.IsNull(off.AllowedTools, "the preset off: nothing allowed in advance");
                var notUsable = Everything(preset: true);
                notUsable.Uloop = new UloopPresence { Cli = "/usr/local/bin/uloop" };
                Assert.IsNull(PanelSession.Create("hi", "/p", ops, notUsable).AllowedTools, "the preset on, uLoop not in the project");
            });
        }
    }
}
