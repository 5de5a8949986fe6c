// The permission card (Codiva.Panel.PermissionCard): the options a request offers and only
// those, worded in EN and JA from their scopes; the answer names exactly the option picked, a
// deny carries the typed reason; nothing is picked by default; "N more waiting".
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Panel;
using Codiva.Protocol;
using NUnit.Framework;
using static Codiva.Tests.Script;

namespace Codiva.Tests
{
    [TestFixture]
    public class PanelPermissionTests
    {
        static Prompt Request(string id, string tool, object input, params PermissionOption[] options) => new Prompt
        {
            Kind = "permission",
            RequestId = id,
            Tool = tool,
            Title = tool,
            Input = input,
            Options = options.ToList(),
            Suggestions = new List<object>(),
        };

        static PermissionOption Option(string id, string kind, string label, PermissionScope scope = null) =>
            new PermissionOption { Id = id, Kind = kind, Label = label, Scope = scope };

        /// Claude Code's options for a Bash call with one suggested rule (docs/serve-api.md).
        static Prompt Bash(string id) => Request(id, "Bash", Obj("command", "git status <x>", "description", "Show status"),
            Option("allow_once", "allow_once", "Allow once"),
            Option("allow_always:0", "allow_always", "Always allow Bash(git status:*) in this project",
                new PermissionScope { Type = "rules", Behavior = "allow", Rules = new List<string> { "Bash(git status:*)", "Bash(git log:*)" }, Place = "local" }),
            Option("allow_always", "allow_always", "Always allow Bash this session", new PermissionScope { Type = "tool", Tool = "Bash" }),
            Option("deny", "deny", "Deny"),
            Option("deny_and_stop", "deny_and_stop", "Deny and stop"));

        static SessionView With(params Prompt[] prompts)
        {
            var view = new SessionView();
            view.Prompts.AddRange(prompts);
            return view;
        }

        [Test]
        public void The_card_offers_the_requests_options_worded_from_their_scopes()
        {
            var question = new Prompt { Kind = "question", RequestId = "q1", Questions = new List<Question>() };
            var view = With(question, Bash("p1"), Bash("p2"), Bash("p3"));
            var card = PermissionCard.Of("s", view, Language.En);
            Assert.AreEqual("p1", card.RequestId);
            Assert.AreEqual("Bash", card.Tool);
            Assert.AreEqual("git status <x>", card.Line);
            Assert.AreEqual("Allow Bash?\ngit status <x>\nShow status", PanelRich.Shown(card.RichHeading(Language.En)));
            Assert.AreEqual("2 more waiting", card.MoreWaitingWords(Language.En));
            Assert.AreEqual("ほか 2 件が待機中", card.MoreWaitingWords(Language.Ja));
            Assert.AreEqual("Allow", card.AllowOnce.Words);
            Assert.AreEqual(new[] { "Always allow Bash(git status:*), Bash(git log:*) (this project, just you)", "Always allow Bash in this session" }, card.Always.Select(c => c.Words).ToArray());
            var ja = PermissionCard.Of("s", view, Language.Ja);
            Assert.AreEqual(new[] { "Bash(git status:*), Bash(git log:*) を常に許可 (このプロジェクト (自分のみ))", "このセッションでは Bash を常に許可" }, ja.Always.Select(c => c.Words).ToArray());
            Assert.AreEqual("拒否", ja.Deny.Words);
            Assert.AreEqual("", PermissionCard.Of("s", With(Bash("only")), Language.En).MoreWaitingWords(Language.En));
            Assert.IsNull(PermissionCard.Of("s", With(question), Language.En), "a question is not a permission card");

            // A mode scope, a scope of a later version (its label), an MCP tool's name.
            var other = Request("p9", "mcp__unity-ops__asset_delete", Obj("path", "Assets/A.prefab"),
                Option("a:0", "allow_always", "Switch to acceptEdits", new PermissionScope { Type = "mode", Mode = "acceptEdits", Place = "session" }),
                Option("a:1", "allow_always", "Something new", new PermissionScope { Type = "unknown" }),
                Option("x", "some_new_kind", "New"));
            var card2 = PermissionCard.Of("s", With(other), Language.En);
            Assert.AreEqual("unity-ops: asset_delete", card2.Tool);
            Assert.AreEqual("Assets/A.prefab", card2.Line);
            Assert.AreEqual(new[] { "Switch to Accept edits (this session)", "Something new" }, card2.Always.Select(c => c.Words).ToArray());
            Assert.IsNull(card2.AllowOnce, "no allow-once option: no Allow button");
            Assert.IsNull(card2.Deny);
            Assert.Throws<InvalidOperationException>(() => card2.Allow());
        }

        [Test]
        public void The_answer_names_exactly_the_option_picked_and_a_deny_carries_the_typed_reason()
        {
            var card = PermissionCard.Of("s", With(Bash("p1")), Language.En);
            var allow = card.Allow();
            Assert.AreEqual("allow_once", allow.Option);
            Assert.AreEqual("p1", allow.RequestId);
            Assert.AreEqual("s", allow.SessionId);
            Assert.IsNull(allow.Message);
            Assert.IsNull(allow.Decision, "the option, not the older decision form");
            Assert.AreEqual("allow_always:0", card.AllowAlways(0).Option);
            Assert.AreEqual("allow_always", card.AllowAlways(1).Option);
            Assert.Throws<ArgumentOutOfRangeException>(() => card.AllowAlways(2));
            var deny = card.Refuse("  use git log instead \n");
            Assert.AreEqual("deny", deny.Option);
            Assert.AreEqual("use git log instead", deny.Message);
            Assert.IsNull(card.Refuse("   ").Message, "a blank reason is no reason");
            var stop = card.RefuseAndStop("stop now");
            Assert.AreEqual("deny_and_stop", stop.Option);
            Assert.AreEqual("stop now", stop.Message);
            // A reason goes only with a deny.
            Assert.IsNull(card.Answer(card.AllowOnce, "why").Message);
            // An option the request does not offer is never answered (not read as another).
            Assert.Throws<ArgumentException>(() => card.Answer(new PermissionChoice { OptionId = "allow_always:7", Kind = "allow_always" }, null));
            Assert.Throws<ArgumentException>(() => card.Answer(null, null));
        }

        [Test]
        public void Nothing_is_decided_by_default()
        {
            // The card has no default: no member of it is an answer until the user picks one.
            var members = typeof(PermissionCard).GetMembers().Select(m => m.Name).ToList();
            Assert.IsFalse(members.Any(m => m.IndexOf("Default", StringComparison.OrdinalIgnoreCase) >= 0), string.Join(", ", members));
            // A request whose options are only allow-always offers no Allow (a wider grant is
            // never what a plain Allow sends).
            var onlyAlways = Request("p", "Edit", Obj("file_path", "/a"), Option("allow_always", "allow_always", "Always", new PermissionScope { Type = "tool", Tool = "Edit" }));
            var card = PermissionCard.Of("s", With(onlyAlways), Language.En);
            Assert.IsNull(card.AllowOnce);
            Assert.Throws<InvalidOperationException>(() => card.Allow());
        }

        [Test]
        public void An_edit_request_shows_its_diff()
        {
            var edit = Request("p", "Edit", Obj("file_path", "/x/a.cs"), Option("allow_once", "allow_once", "Allow once"));
            edit.Content = new List<ToolContent> { new ToolContent { Type = "diff", Path = "/x/a.cs", Old = "int a;\n", New = "List<int> a;\n" } };
            var card = PermissionCard.Of("s", With(edit), Language.En);
            Assert.AreEqual("a.cs", card.Line);
            Assert.AreEqual("- int a;\n+ List<int> a;", PanelRich.Shown(LineDiff.Rich(card.Diff, Language.En)));
        }
    }
}
