// One Undo step per agent turn, refresh held during it, and the turn-end note
// (Core/Unity/TurnScope.cs), over a store fed the daemon's notifications and fakes of Unity's Undo
// and Asset Database that keep Unity's rules (an operation goes into the current group;
// collapsing from a group merges it and every later one; auto refresh is counted).
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Json;
using Codiva.Ops;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Rpc;
using Codiva.Unity;
using NUnit.Framework;
using static Codiva.Tests.Waits;

namespace Codiva.Tests
{
    /// Unity's Undo as the Scripting Reference describes it: operations are recorded into the
    /// current group; `IncrementCurrentGroup` starts the next; `CollapseUndoOperations(g)` merges
    /// group g and every later one into one step. Thread-safe (Ops tools run on another thread in
    /// the end-to-end test).
    public sealed class FakeUndo : IUndo
    {
        public sealed class Group
        {
            public int Index;
            public string Name;
            public readonly List<string> Operations = new List<string>();
        }

        readonly List<Group> groups = new List<Group> { new Group { Index = 0, Name = "" } };
        int next = 1;

        public int Begin(string name)
        {
            lock (groups)
            {
                var group = new Group { Index = next++, Name = name };
                groups.Add(group);
                return group.Index;
            }
        }

        /// What a tool (or the user) does in Unity: one recorded operation in the current group.
        public void Record(string operation) { lock (groups) groups.Last().Operations.Add(operation); }

        public void Collapse(int group, string name)
        {
            lock (groups)
            {
                var merged = new Group { Index = group, Name = name };
                foreach (var g in groups.Where(g => g.Index >= group)) merged.Operations.AddRange(g.Operations);
                groups.RemoveAll(g => g.Index >= group);
                groups.Add(merged);
            }
        }

        /// The steps Edit → Undo would take, newest last (groups without operations are no step).
        public List<Group> Steps { get { lock (groups) return groups.Where(g => g.Operations.Count > 0).ToList(); } }
    }

    public sealed class FakeRefresh : IAssetRefresh
    {
        public readonly List<string> Calls = new List<string>();
        public int Held;
        public void Disallow() { lock (Calls) { Calls.Add("disallow"); Held++; } }
        public void Allow() { lock (Calls) { Calls.Add("allow"); Held--; } }
        public void Refresh() { lock (Calls) Calls.Add("refresh"); }
    }

    [TestFixture]
    public class UndoTurnTests
    {
        const string Project = "/work/Game";
        SessionStore store;
        FakeUndo undo;
        FakeRefresh refresh;
        TurnScope scope;
        List<TurnNote> notes;
        long seq;
        long entry;

        [SetUp]
        public void SetUp()
        {
            store = new SessionStore();
            store.Reset(new ManagerSnapshot
            {
                Seq = 0,
                Sessions = new List<SessionInfo> { Row("p", true, Project), Row("q", true, Project + "/"), Row("w", false, "/work/.codiva/wt") },
            });
            seq = 0;
            entry = 0;
            undo = new FakeUndo();
            refresh = new FakeRefresh();
            var registry = new ToolRegistry();
            registry.Add(new PingTool());
            registry.Add(new ScriptCommitTool(Project, null));
            registry.Add(new UndoableTool("make_cube", undo));
            scope = new TurnScope(store, undo, refresh, new OpsToolEffects(registry), TurnScope.InPlaceIn(Project));
            notes = new List<TurnNote>();
            scope.TurnEnded += notes.Add;
        }

        [TearDown]
        public void TearDown() => scope.Dispose();

        static SessionInfo Row(string id, bool inPlace, string worktree) => Wire.FromJson<SessionInfo>(JsonText.Parse(
            "{\"id\":\"" + id + "\",\"agent\":\"claude\",\"phase\":\"active\",\"status\":\"completed\",\"in_place\":" + (inPlace ? "true" : "false") +
            ",\"worktree\":" + JsonText.Write(worktree) + "}"));

        void Send(string id, string method, string kind, string fields) =>
            Assert.AreEqual(Applied.Applied, store.Apply(Notifications.Read(method, JsonText.Parse(
                "{\"seq\":" + (++seq) + ",\"session_id\":\"" + id + "\",\"event\":\"" + kind + "\"," + fields + "}"))));

        void Status(string id, string status) => Send(id, "session/status", "status", "\"status\":\"" + status + "\",\"detail\":null");

        void Tool(string id, string name, string kind, string summary, string status = "succeeded", string title = null) =>
            Send(id, "session/log", "log", "\"scope\":\"main\",\"update\":false,\"entry\":{\"id\":" + (++entry) + ",\"at_ms\":0,\"kind\":\"tool\",\"name\":" +
                JsonText.Write(name) + ",\"title\":" + JsonText.Write(title ?? name) + ",\"tool_kind\":\"" + kind + "\",\"summary\":" + JsonText.Write(summary) +
                ",\"status\":\"" + status + "\"}");

        void Said(string id, string text) =>
            Send(id, "session/log", "log", "\"scope\":\"main\",\"update\":false,\"entry\":{\"id\":" + (++entry) + ",\"at_ms\":0,\"kind\":\"user\",\"text\":" + JsonText.Write(text) + "}");

        /// An Ops tool that records its change in Undo (as the Editor's scene tools do), in a group
        /// of its own (as `UnityTools.InUndoGroup` does).
        internal sealed class UndoableTool : ITool, IRevertedByUndo
        {
            readonly FakeUndo undo;
            public UndoableTool(string name, FakeUndo undo, ThreadAffinity affinity = ThreadAffinity.Any) { Name = name; this.undo = undo; Affinity = affinity; }
            public string Name { get; }
            public string Module => "test";
            public string Description => "Records one Undo operation.";
            public Dictionary<string, object> InputSchema => Args.Schema("what", "string", "what to make");
            public ThreadAffinity Affinity { get; }
            public bool Destructive => false;
            public ToolResult Call(Dictionary<string, object> arguments)
            {
                undo.Begin("codiva: " + Name);
                var what = JsonRead.Str(arguments, "what") ?? "";
                undo.Record(Name + " " + what);
                return ToolResult.Text("made " + what);
            }
        }

        void CallUndoable(string what) => new UndoableTool("make_cube", undo).Call(new Dictionary<string, object> { { "what", what } });

        [Test]
        public void A_turn_with_three_tool_calls_is_one_Undo_step_and_one_refresh_at_its_end()
        {
            undo.Begin("the user's own edit");
            undo.Record("user moved the camera");

            Said("p", "make three cubes");
            Status("p", "running");
            Assert.IsTrue(scope.InTurn);
            CollectionAssert.AreEqual(new[] { "disallow" }, refresh.Calls);
            foreach (var n in new[] { "one", "two", "three" })
            {
                Status("p", "awaiting_permission");
                Status("p", "running");
                CallUndoable(n);
                Tool("p", "mcp__unity-ops__make_cube", "other", n);
            }
            Assert.AreEqual(4, undo.Steps.Count, "before the turn ends, each call is a step of its own");
            CollectionAssert.AreEqual(new[] { "disallow" }, refresh.Calls, "no refresh and no second hold during the turn");
            Status("p", "completed");

            Assert.IsFalse(scope.InTurn);
            var steps = undo.Steps;
            Assert.AreEqual(2, steps.Count, "the user's step and the turn's");
            Assert.AreEqual("user moved the camera", steps[0].Operations.Single());
            Assert.AreEqual(TurnScope.UndoName, steps[1].Name);
            CollectionAssert.AreEqual(new[] { "make_cube one", "make_cube two", "make_cube three" }, steps[1].Operations);
            CollectionAssert.AreEqual(new[] { "disallow", "allow", "refresh" }, refresh.Calls);
            Assert.AreEqual(0, refresh.Held);
            Assert.AreEqual(1, notes.Count);
            Assert.IsTrue(notes[0].IsEmpty, "every call of the turn is reverted by Undo");

            // The next turn is a step of its own.
            Status("p", "running");
            CallUndoable("four");
            Status("p", "interrupted");
            Assert.AreEqual(3, undo.Steps.Count);
            CollectionAssert.AreEqual(new[] { "disallow", "allow", "refresh", "disallow", "allow", "refresh" }, refresh.Calls);
        }

        [Test]
        public void The_turn_end_note_names_what_Undo_cannot_revert_once_each_in_order()
        {
            Tool("p", "Bash", "execute", "before the turn");
            Status("p", "running");
            Tool("p", "Read", "read", "Assets/A.cs");
            Tool("p", "Grep", "search", "TODO");
            Tool("p", "Bash", "execute", "rm -rf Temp/cache");
            Tool("p", "Bash", "execute", "rm -rf Library", "denied");
            Tool("p", "Write", "edit", "CodivaStaging~/Assets/Door.cs");
            Tool("p", "Bash", "execute", "rm -rf Temp/cache");
            Tool("p", "mcp__unity-ops__make_cube", "other", "cube");
            Tool("p", "mcp__unity-ops__ping", "other", "");
            Tool("p", "mcp__unity-ops__scripts_commit", "other", "", "succeeded", "scripts_commit");
            Tool("p", "mcp__unity-ops__from_a_newer_panel", "other", "x");
            Tool("p", "mcp__other__thing", "other", "y");
            Tool("p", "Bash", "execute", "false", "failed");
            Tool("p", "Agent", "agent", "refactor the player");
            Tool("p", "TodoWrite", "todo", "3 items");
            Tool("p", "Frobnicate", "a-kind-from-the-future", "z");
            Status("p", "completed");

            CollectionAssert.AreEqual(new[]
            {
                "Bash: rm -rf Temp/cache",
                "Write: CodivaStaging~/Assets/Door.cs",
                "scripts_commit",
                "mcp__unity-ops__from_a_newer_panel: x",
                "mcp__other__thing: y",
                "Bash: false",
                "Agent: refactor the player",
                "Frobnicate: z",
            }, notes.Single().OutsideUndo);
            Assert.AreEqual("p", notes.Single().SessionId);
        }

        [Test]
        public void Note_lines_are_one_line_capped_at_a_character_boundary_and_counted_past_ten()
        {
            Status("p", "running");
            Tool("p", "Bash", "execute", "echo a\necho b\u202e\u2028c");
            Tool("p", "Bash", "execute", new string('x', TurnScope.MaxLineChars - 7) + "😀😀");
            for (var i = 0; i < 12; i++) Tool("p", "Bash", "execute", "cmd " + i);
            Status("p", "completed");
            var note = notes.Single();
            Assert.AreEqual("Bash: echo a echo b  c", note.OutsideUndo[0]);
            // 6 + 113 characters, then the emoji whole (one character), then the cut.
            Assert.AreEqual("Bash: " + new string('x', TurnScope.MaxLineChars - 7) + "😀…", note.OutsideUndo[1]);
            Assert.AreEqual(TurnScope.MaxNoteLines, note.OutsideUndo.Count);
            Assert.AreEqual(4, note.More);
        }

        [Test]
        public void The_note_is_worded_in_English_and_Japanese_with_every_line_through_the_chokepoint()
        {
            Status("p", "running");
            Status("p", "completed");
            Assert.IsNull(notes.Single().Rich(Panel.Language.En), "nothing to say: no label");
            Status("p", "running");
            Tool("p", "Bash", "execute", "echo '<color=red>x</color>' > List<int>.txt");
            for (var i = 0; i < TurnScope.MaxNoteLines + 2; i++) Tool("p", "Bash", "execute", "cmd " + i);
            Status("p", "completed");
            var note = notes.Last();
            var en = note.Rich(Panel.Language.En);
            StringAssert.StartsWith("<b>Edit → Undo reverts this turn's Unity changes in one step. It cannot revert:</b>\n• Bash: echo '<\u200Bcolor=red>x<\u200B/color>' > List<\u200Bint>.txt\n• Bash: cmd 0\n", en);
            StringAssert.EndsWith("• Bash: cmd 8\n… and 3 more", en);
            var ja = note.Rich(Panel.Language.Ja);
            StringAssert.StartsWith("<b>「編集 → 元に戻す」でこのターンのエディター上の変更を一度に元に戻せます。次のものは元に戻せません:</b>\n• Bash: echo", ja);
            StringAssert.EndsWith("…ほか 3 件", ja);
            Assert.AreEqual(en.Replace("\u200B", "").Replace("<b>", "").Replace("</b>", "").Length, RichTextTests.Shown(en).Length, "only the heading's bold is a tag");
        }

        [Test]
        public void The_window_words_its_connection_and_its_badge_in_the_panels_language()
        {
            Assert.AreEqual("Connected", PanelWords.Connection(ConnectionState.Connected, Panel.Language.En));
            Assert.AreEqual("接続済み", PanelWords.Connection(ConnectionState.Connected, Panel.Language.Ja));
            Assert.AreEqual("再接続中…", PanelWords.Connection(ConnectionState.Reconnecting, Panel.Language.Ja));
            foreach (ConnectionState state in Enum.GetValues(typeof(ConnectionState)))
                foreach (Panel.Language language in Enum.GetValues(typeof(Panel.Language)))
                    Assert.IsNotEmpty(PanelWords.Connection(state, language));
            Assert.AreEqual("codiva", PanelWords.WindowTitle(0));
            Assert.AreEqual("codiva (3)", PanelWords.WindowTitle(3));
        }

        [Test]
        public void Only_the_panels_sessions_count_and_unsettled_or_unknown_statuses_change_nothing()
        {
            Status("w", "running");
            Assert.IsFalse(scope.InTurn, "a worktree session is not the panel's");
            Status("p", "queued");
            Status("p", "starting");
            Assert.IsFalse(scope.InTurn);
            Status("p", "running");
            Status("p", "starting");
            Status("p", "a_status_from_the_future");
            Assert.IsTrue(scope.InTurn, "neither settles the turn");
            Status("w", "completed");
            Assert.IsTrue(scope.InTurn);
            Status("p", "needs_login");
            Assert.IsFalse(scope.InTurn);
            Assert.AreEqual(1, notes.Count);
        }

        [Test]
        public void Two_panel_turns_at_once_are_one_step_held_until_both_end_and_a_removed_session_ends_its_turn()
        {
            Status("p", "running");
            CallUndoable("p1");
            Status("q", "running");
            CallUndoable("q1");
            Status("p", "completed");
            Assert.IsTrue(scope.InTurn);
            Assert.AreEqual(2, undo.Steps.Count, "not collapsed while q works");
            Assert.AreEqual(1, notes.Count);
            Assert.IsTrue(store.Apply(Notifications.Read("session/removed", JsonText.Parse("{\"seq\":" + (++seq) + ",\"session_id\":\"q\"}"))) == Applied.Applied);
            Assert.IsFalse(scope.InTurn);
            Assert.AreEqual(1, undo.Steps.Count);
            CollectionAssert.AreEqual(new[] { "disallow", "allow", "refresh" }, refresh.Calls);
            Assert.AreEqual(2, notes.Count);
        }

        [Test]
        public void Each_panel_session_not_loaded_is_loaded_once_and_no_other()
        {
            scope.Dispose();
            var loaded = new List<string>();
            var loading = new TurnScope(store, undo, refresh, null, TurnScope.InPlaceIn(Project), loaded.Add);
            CollectionAssert.AreEqual(new[] { "p", "q" }, loaded, "the panel's sessions, not the worktree one");
            Status("p", "running");
            Status("w", "running");
            CollectionAssert.AreEqual(new[] { "p", "q" }, loaded, "once each");
            store.BeginLoad("p").Load(new SessionSnapshot { Status = "running", Connected = true, Prompts = new List<Prompt>(), Log = new List<LogEntry>(), Subagents = new List<SubagentView>() });
            Assert.IsTrue(store["p"].LogLoaded);
            Status("p", "completed");
            CollectionAssert.AreEqual(new[] { "p", "q" }, loaded);
            loading.Dispose();
        }

        [Test]
        public void Disposing_in_a_turn_collapses_it_and_lets_refresh_go_without_starting_one()
        {
            Status("p", "running");
            CallUndoable("a");
            CallUndoable("b");
            scope.Dispose();
            Assert.AreEqual(1, undo.Steps.Count);
            Assert.AreEqual(0, refresh.Held);
            CollectionAssert.AreEqual(new[] { "disallow", "allow" }, refresh.Calls, "before a domain reload: the reload imports");
            Status("p", "completed");
            Status("p", "running");
            CollectionAssert.AreEqual(new[] { "disallow", "allow" }, refresh.Calls, "a disposed scope watches nothing");
        }

        [Test]
        public void A_session_already_working_when_the_scope_starts_opens_its_turn()
        {
            scope.Dispose();
            Status("p", "running");
            var late = new TurnScope(store, undo, refresh, null, TurnScope.InPlaceIn(Project));
            Assert.IsTrue(late.InTurn);
            Status("p", "completed");
            Assert.IsFalse(late.InTurn);
            late.Dispose();
        }
    }

    /// End to end: the panel's session in codiva's daemon with the real `claude`; in one turn the
    /// model calls an Ops tool that records in Undo three times (each asked and allowed, so the
    /// status goes between `running` and `awaiting_permission`) and runs one shell command. The
    /// turn is one Undo step with the three operations, auto refresh is held from its start to its
    /// end and refreshed once, and the turn-end note names the command only.
    [TestFixture]
    public class UndoTurnEndToEndTests
    {
        [Test]
        public void A_turn_with_three_tool_calls_gives_one_Undo_group_and_names_the_shell_command_it_cannot_revert()
        {
            const string Make = "mcp__" + PanelSession.OpsServerName + "__make_cube";
            var script = Script.Rules(
                Script.When("last_user_contains", "UNDO three", Script.ToolUse(Make, Script.Obj("what", "one"))),
                Script.When("last_user_contains", "made one", Script.ToolUse(Make, Script.Obj("what", "two"))),
                Script.When("last_user_contains", "made two", Script.ToolUse(Make, Script.Obj("what", "three"))),
                Script.When("last_user_contains", "made three", Script.ToolUse("Bash", Script.Obj("command", "echo done > undo-proof.txt", "description", "Write a proof file"))),
                Script.When("any_user_contains", "made three", Script.Text("Three cubes.")));
            using (var world = new World(script))
            using (var unity = new ThreadDispatcher("unity-main"))
            using (var main = new ThreadDispatcher())
            {
                var undo = new FakeUndo();
                var refresh = new FakeRefresh();
                var registry = new ToolRegistry();
                registry.Add(new UndoTurnTests.UndoableTool("make_cube", undo, ThreadAffinity.MainThread));
                registry.Enable("test");
                using (var server = new McpServer(registry, new ToolRunner(unity)))
                {
                    server.Start();
                    var client = new CodivaClient(new DaemonSocketTransportFactory(world.Program()), main);
                    var scope = main.Invoke(() => new TurnScope(client.Store, undo, refresh, new OpsToolEffects(registry), TurnScope.InPlaceIn(world.Repo)));
                    var notes = new List<TurnNote>();
                    scope.TurnEnded += notes.Add;
                    try
                    {
                        client.Start();
                        Until(main, () => client.State == ConnectionState.Connected, "the connection");
                        var id = client.CreateSession(PanelSession.Create("UNDO three", world.Repo, server)).Result.Session.Id;
                        client.Watch(id);
                        var answered = new HashSet<string>();
                        var sawHeld = false;
                        while (true)
                        {
                            Until(main, () => notes.Count > 0
                                || client.Store[id]?.Prompts.Any(p => p.Kind == "permission" && !answered.Contains(p.RequestId)) == true, "a permission or the end of the turn");
                            var open = main.Invoke(() => client.Store[id].Prompts.FirstOrDefault(p => p.Kind == "permission" && !answered.Contains(p.RequestId)));
                            if (open == null) break;
                            sawHeld |= main.Invoke(() => scope.InTurn && refresh.Held == 1);
                            answered.Add(open.RequestId);
                            client.RespondPermission(id, open.RequestId, open.Options.First(o => o.Kind == "allow_once").Id).Wait();
                        }
                        Until(main, () => client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == "Three cubes."), "the answer");
                        Assert.AreEqual(4, answered.Count, "three Ops calls and the command, each asked");
                        Assert.IsTrue(sawHeld, "refresh was held while the turn asked");

                        var steps = undo.Steps;
                        Assert.AreEqual(1, steps.Count, string.Join(" | ", steps.Select(g => g.Name + ": " + string.Join(", ", g.Operations))));
                        Assert.AreEqual(TurnScope.UndoName, steps[0].Name);
                        CollectionAssert.AreEqual(new[] { "make_cube one", "make_cube two", "make_cube three" }, steps[0].Operations);
                        lock (refresh.Calls) CollectionAssert.AreEqual(new[] { "disallow", "allow", "refresh" }, refresh.Calls);
                        var note = main.Invoke(() => notes.Single());
                        Assert.AreEqual(1, note.OutsideUndo.Count, string.Join("\n", note.OutsideUndo));
                        StringAssert.StartsWith("Bash", note.OutsideUndo[0]);
                        StringAssert.Contains("undo-proof.txt", note.OutsideUndo[0]);
                    }
                    finally
                    {
                        client.Dispose();
                        main.Invoke(() => { scope.Dispose(); return 0; });
                    }
                }
                Assert.IsNull(unity.Failure);
            }
        }
    }
}
