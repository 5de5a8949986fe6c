// Auto-approve levels (Codiva.Ops.AutoApprove) over a registry of tools that say what they do to
// the project as the Editor's tools do: each level's approval policy names exactly the Ops tools
// it lets through, never a destructive one, one that changes what Undo does not revert, one that
// says nothing, an agent's own tool or a disabled module's; "all tools" is codiva's allow_all.
// A panel session is created with the `ask` policy; the level remembered is the one codiva took.
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Client;
using Codiva.Ops;
using Codiva.Panel;
using Codiva.Protocol;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class AutoApproveTests
    {
        abstract class Fake : ITool
        {
            readonly string name;
            protected Fake(string name, string module = "scene") { this.name = name; Module = module; }
            public string Name => name;
            public string Module { get; }
            public string Description => name;
            public Dictionary<string, object> InputSchema => Args.Schema();
            public ThreadAffinity Affinity => ThreadAffinity.Any;
            public virtual bool Destructive => false;
            public ToolResult Call(Dictionary<string, object> arguments) => ToolResult.Text("ok");
        }

        // As in Editor/UnityTools.cs: a Unity tool is reverted by Undo; some change nothing, some
        // change what Undo does not revert.
        abstract class UnityLike : Fake, IRevertedByUndo { protected UnityLike(string name) : base(name) { } }
        sealed class Create : UnityLike { public Create() : base("scene_create_object") { } }
        sealed class List : UnityLike, IChangesNothing { public List() : base("component_list") { } }
        sealed class Menu : UnityLike, IChangesOutsideUndo { public Menu() : base("editor_execute_menu") { } }
        sealed class Destroy : Fake, IRevertedByUndo { public Destroy() : base("scene_destroy_object") { } public override bool Destructive => true; }
        sealed class Delete : Fake, IChangesOutsideUndo { public Delete() : base("asset_delete") { } public override bool Destructive => true; }
        sealed class Silent : Fake { public Silent() : base("says_nothing") { } }
        sealed class Hidden : Fake, IChangesNothing { public Hidden() : base("hidden_query", "later") { } }

        static ToolRegistry Registry()
        {
            var registry = new ToolRegistry();
            var runner = new ToolRunner(new ThreadDispatcher());
            foreach (var tool in new ITool[] { new PingTool(), new JobStatusTool(runner.Jobs), new Create(), new List(), new Menu(), new Destroy(), new Delete(), new Silent(), new Hidden() })
                registry.Add(tool);
            registry.Add(new ScriptCommitTool(Path.GetTempPath(), null));
            foreach (var module in new[] { "core", "scene", "scripts" }) registry.Enable(module);
            return registry;
        }

        static string[] Rules(ApprovalPolicy policy) => policy.Rules.Select(r => r.Tool + (r.CommandPrefix == null ? "" : " " + r.CommandPrefix)).ToArray();

        [Test]
        public void Each_level_is_codivas_policy_naming_only_the_Ops_tools_it_lets_through()
        {
            var registry = Registry();
            var ask = AutoApprove.Policy(AutoApproveLevel.Ask, registry);
            Assert.AreEqual("ask", ask.Mode);
            Assert.IsNull(ask.Rules);

            var nothing = AutoApprove.Policy(AutoApproveLevel.UnityToolsThatChangeNothing, registry);
            Assert.AreEqual("rules", nothing.Mode);
            Assert.AreEqual(new[] { "mcp__unity-ops__component_list", "mcp__unity-ops__job_status", "mcp__unity-ops__ping" }, Rules(nothing));

            var undo = AutoApprove.Policy(AutoApproveLevel.UnityToolsUndoReverts, registry);
            Assert.AreEqual("rules", undo.Mode);
            Assert.AreEqual(new[] { "mcp__unity-ops__component_list", "mcp__unity-ops__job_status", "mcp__unity-ops__ping", "mcp__unity-ops__scene_create_object" }, Rules(undo));

            Assert.AreEqual("allow_all", AutoApprove.Policy(AutoApproveLevel.AllTools, registry).Mode);

            // What the picker sends names the session and the same policy.
            var chosen = AutoApprove.Choose("s1", AutoApproveLevel.UnityToolsUndoReverts, registry);
            Assert.AreEqual("s1", chosen.SessionId);
            Assert.AreEqual(Rules(undo), Rules(chosen.Policy));
            // On the wire: the protocol's tagged union.
            StringAssert.AreEqualIgnoringCase("{\"policy\":{\"mode\":\"rules\",\"rules\":[{\"tool\":\"mcp__unity-ops__component_list\"},{\"tool\":\"mcp__unity-ops__job_status\"},{\"tool\":\"mcp__unity-ops__ping\"}]},\"session_id\":\"s1\"}",
                Codiva.Json.JsonText.Write(Wire.ToJson(AutoApprove.Choose("s1", AutoApproveLevel.UnityToolsThatChangeNothing, registry))));
        }

        [Test]
        public void No_level_but_all_tools_lets_a_destructive_an_outside_Undo_a_silent_or_a_disabled_tool_through()
        {
            var registry = Registry();
            foreach (var level in new[] { AutoApproveLevel.Ask, AutoApproveLevel.UnityToolsThatChangeNothing, AutoApproveLevel.UnityToolsUndoReverts })
            {
                var rules = AutoApprove.Policy(level, registry).Rules ?? new List<ApprovalRule>();
                foreach (var never in new[] { "scene_destroy_object", "asset_delete", "editor_execute_menu", "says_nothing", "hidden_query", "scripts_commit" })
                    Assert.IsFalse(rules.Any(r => r.Tool.EndsWith("__" + never)), level + " lets " + never + " through");
                // Only the Ops server's tools, by their whole name: never Bash, Edit, Write or a question.
                Assert.IsTrue(rules.All(r => r.Tool.StartsWith("mcp__unity-ops__") && r.CommandPrefix == null), level.ToString());
            }
            Assert.IsTrue(AutoApprove.Approves(AutoApproveLevel.AllTools, new Delete()));
            Assert.IsFalse(AutoApprove.Approves(AutoApproveLevel.UnityToolsUndoReverts, null));
        }

        [Test]
        public void The_picker_words_each_level_and_a_session_not_set_from_the_panel_says_so()
        {
            var registry = Registry();
            var items = AutoApprove.Items(AutoApproveLevel.UnityToolsThatChangeNothing, registry, Language.En);
            Assert.AreEqual(new[] { "Ask for everything", "Unity tools that change nothing", "Unity tools that change nothing or that Undo reverts", "All tools (commands and file edits too)" }, items.Select(i => i.Label).ToArray());
            Assert.AreEqual(new[] { false, true, false, false }, items.Select(i => i.Current).ToArray());
            Assert.AreEqual(new[] { false, false, false, true }, items.Select(i => i.Dangerous).ToArray());
            Assert.AreEqual("component_list, job_status, ping", items[1].Detail);
            Assert.AreEqual(AutoApproveLevel.AllTools, AutoApprove.LevelOf(items[3]));
            Assert.IsFalse(AutoApprove.Items(null, registry, Language.Ja).Any(i => i.Current));
            Assert.AreEqual("自動承認: このパネルからは未設定(選ぶと設定されます)", AutoApprove.ButtonWords(null, Language.Ja));
            Assert.AreEqual("Auto-approve: Ask for everything", AutoApprove.ButtonWords(AutoApproveLevel.Ask, Language.En));
        }

        [Test]
        public void A_panel_session_is_created_asking_whatever_codivas_default_is()
        {
            using (var ops = new McpServer(new ToolRegistry(), new ToolRunner(new ThreadDispatcher())))
            {
                var parameters = PanelSession.Create("hi", "/p", ops);
                Assert.AreEqual("ask", parameters.ApprovalPolicy?.Mode);
            }
        }

        [Test]
        public void The_level_codiva_took_is_remembered_by_session_in_a_file()
        {
            using (var dir = new TempDir("codiva-approve-"))
            {
                var file = Path.Combine(dir.Path, "Library", "Codiva", "auto-approve.json");
                var choices = new AutoApproveChoices(file);
                Assert.IsNull(choices.Of("s1"), "not set from the panel: unknown, not Ask");
                choices.Set("s1", AutoApproveLevel.UnityToolsUndoReverts);
                choices.Set("s2", AutoApproveLevel.Ask);
                var again = new AutoApproveChoices(file);
                Assert.AreEqual(AutoApproveLevel.UnityToolsUndoReverts, again.Of("s1"));
                Assert.AreEqual(AutoApproveLevel.Ask, again.Of("s2"));
                again.Forget("s1");
                Assert.IsNull(new AutoApproveChoices(file).Of("s1"));

                File.WriteAllText(file, "{\"s1\":\"Everything\"}");
                var broken = new AutoApproveChoices(file);
                Assert.IsNull(broken.Of("s1"));
                StringAssert.Contains("could not be read", broken.Problem);
                Assert.IsTrue(File.Exists(file + ".unreadable"));
            }
        }

        [Test]
        public void Every_request_the_policy_allowed_is_shown_in_the_conversation()
        {
            var view = new SessionView();
            view.Log.Add(new LogEntry
            {
                Id = 1, Kind = "note", Level = "info", Text = "mcp__unity-ops__ping allowed by the approval policy (rule mcp__unity-ops__ping)",
                Code = new NoteCode { Name = "allowed_by_policy", Args = new List<string> { "mcp__unity-ops__ping", "rule mcp__unity-ops__ping" } },
            });
            Assert.AreEqual("Allowed without asking: mcp__unity-ops__ping", PanelRich.Shown(Conversation.Build(view, Language.En).Single().Rich));
            Assert.AreEqual("確認なしで許可: mcp__unity-ops__ping", PanelRich.Shown(Conversation.Build(view, Language.Ja).Single().Rich));
        }
    }
}
