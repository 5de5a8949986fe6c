// The conversation model (Codiva.Panel.Conversation and its cards) over views built by hand:
// messages through RichText, tool cards (describer, state, duration, diff), folding of three or
// more consecutive completed calls, thinking and compaction markers, subagent cards, the TODO
// checklist, and the batching of the message being written.
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
    public class PanelConversationTests
    {
        static LogEntry Tool(long id, string name, string status, object input, string summary = null, long? ms = null, string toolUseId = null) =>
            new LogEntry { Id = id, Kind = "tool", Name = name, Title = name, Status = status, Input = input, Summary = summary, DurationMs = ms, ToolUseId = toolUseId ?? "toolu_" + id };

        static LogEntry Said(long id, string kind, string text) => new LogEntry { Id = id, Kind = kind, Text = text };

        static SessionView View(params LogEntry[] entries)
        {
            var view = new SessionView();
            view.Log.AddRange(entries);
            return view;
        }

        [Test]
        public void Three_consecutive_completed_calls_fold_into_one_group_and_others_break_the_run()
        {
            var view = View(
                Said(1, "user", "go"),
                Tool(2, "Read", "succeeded", Obj("file_path", "/p/a.cs")),
                Tool(3, "Grep", "succeeded", Obj("pattern", "Foo")),
                Tool(4, "Glob", "succeeded", Obj("pattern", "*.md")),
                Tool(5, "Bash", "failed", Obj("command", "make")),
                Tool(6, "Read", "succeeded", Obj("file_path", "/p/b.cs")),
                Tool(7, "Read", "succeeded", Obj("file_path", "/p/c.cs")),
                Said(8, "assistant", "done"));
            var items = Conversation.Build(view, Language.En);
            Assert.AreEqual(new[] { ItemKind.User, ItemKind.ToolGroup, ItemKind.Tool, ItemKind.Tool, ItemKind.Tool, ItemKind.Assistant }, items.Select(i => i.Kind).ToArray());
            var group = items[1];
            Assert.AreEqual("2", group.Key);
            Assert.AreEqual(new[] { "a.cs", "Foo", "*.md" }, group.Tools.Select(t => t.Line).ToArray());
            Assert.AreEqual("3 tools  Read, Grep, Glob", PanelRich.Shown(group.Rich));
            Assert.AreEqual("ツール 3 件  Read, Grep, Glob", PanelRich.Shown(Conversation.Build(view, Language.Ja)[1].Rich));
            Assert.AreEqual("failed", items[2].Tool.State);
            // Two completed calls after a failed one stay two cards.
            Assert.AreEqual(new[] { "b.cs", "c.cs" }, new[] { items[3].Tool.Line, items[4].Tool.Line });

            // Opened by the user: its calls one by one.
            var open = Conversation.Build(view, Language.En, new HashSet<string> { "2" });
            Assert.AreEqual(ItemKind.Tool, open[1].Kind);
            Assert.AreEqual(8, open.Count);
        }

        [Test]
        public void A_running_call_is_never_folded()
        {
            var view = View(
                Tool(1, "Read", "succeeded", Obj("file_path", "a")),
                Tool(2, "Read", "succeeded", Obj("file_path", "b")),
                Tool(3, "Read", "running", Obj("file_path", "c")),
                Tool(4, "Read", "succeeded", Obj("file_path", "d")));
            Assert.IsFalse(Conversation.Build(view, Language.En).Any(i => i.Kind == ItemKind.ToolGroup));
        }

        [Test]
        public void Tool_cards_describe_their_call_in_one_line_with_state_and_duration()
        {
            var card = ToolCard.Of(Tool(1, "Bash", "succeeded", Obj("command", "ls -la\nrm -rf /"), ms: 1234));
            Assert.AreEqual("ls -la rm -rf /", card.Line);
            Assert.AreEqual("{\"command\":\"ls -la\\nrm -rf /\"}", card.Input);
            Assert.AreEqual("Bash  ls -la rm -rf / · done · 1.2s", PanelRich.Shown(card.RichHeader(Language.En)));
            Assert.AreEqual("Bash  ls -la rm -rf / · 完了 · 1.2秒", PanelRich.Shown(card.RichHeader(Language.Ja)));
            // codiva's summary wins over the input.
            Assert.AreEqual("src/x.rs", ToolCard.Of(Tool(2, "Edit", "running", Obj("file_path", "/a/src/x.rs"), summary: "src/x.rs")).Line);
            Assert.AreEqual("example.com", ToolCard.Of(Tool(3, "WebFetch", "succeeded", Obj("url", "https://example.com/a?b"))).Line);
            var mcp = ToolCard.Of(new LogEntry { Id = 4, Kind = "tool", Name = "mcp__unity-ops__scene_create_object", Status = "denied", Input = Obj("name", "Cube") });
            Assert.AreEqual("unity-ops: scene_create_object", mcp.Title);
            Assert.AreEqual("Cube", mcp.Line);
            Assert.AreEqual("denied", mcp.StateWords(Language.En));
            Assert.AreEqual("拒否", mcp.StateWords(Language.Ja));
            Assert.AreEqual("2m 05s", Words.Duration(125000, Language.En));
            Assert.AreEqual("2分05秒", Words.Duration(125000, Language.Ja));
            Assert.AreEqual("1h 03m", Words.Duration(3780000, Language.En));
            // A call whose turn ended without its outcome: neither running nor done, and never folded.
            var unreported = ToolCard.Of(Tool(7, "Bash", "unreported", Obj("command", "touch made.txt"), ms: 1200));
            Assert.IsFalse(unreported.Running);
            Assert.IsFalse(unreported.Completed);
            Assert.AreEqual("Bash  touch made.txt · outcome unknown · 1.2s", PanelRich.Shown(unreported.RichHeader(Language.En)));
            Assert.AreEqual("Bash  touch made.txt · 結果不明 · 1.2秒", PanelRich.Shown(unreported.RichHeader(Language.Ja)));
            // An unknown state of a later version is kept as its word.
            Assert.AreEqual("queued", ToolCard.Of(Tool(5, "Bash", "queued", Obj())).StateWords(Language.En));
            // A long line is cut at a character boundary, never inside a surrogate pair.
            var emoji = string.Concat(Enumerable.Repeat("😀", 100));
            var cut = ToolCard.Of(Tool(6, "Bash", "running", Obj("command", emoji))).Line;
            Assert.LessOrEqual(cut.Length, ToolDescriber.MaxLine);
            Assert.Greater(cut.Length, ToolDescriber.MaxLine - 3);
            Assert.IsFalse(char.IsHighSurrogate(cut[cut.Length - 2]), cut);
            StringAssert.EndsWith("…", cut);
        }

        [Test]
        public void An_edit_card_shows_the_changed_lines_with_context_and_escaped()
        {
            var old = "a\nb\nc\nd\ne\nf\ng\nh\n";
            var @new = "a\nb\nc\nD<T>\ne\nf\ng\nh\n";
            var entry = Tool(1, "Edit", "succeeded", Obj("file_path", "/x/f.cs"));
            entry.Content = new List<ToolContent> { new ToolContent { Type = "diff", Path = "/x/f.cs", Old = old, New = @new } };
            var card = ToolCard.Of(entry);
            Assert.AreEqual("/x/f.cs", card.DiffPath);
            Assert.AreEqual(new[] { "S1", "=b", "=c", "-d", "+D<T>", "=e", "=f", "S2" },
                card.Diff.Select(l => l.Kind == DiffKind.Skipped ? "S" + l.Count : (l.Kind == DiffKind.Same ? "=" : l.Kind == DiffKind.Added ? "+" : "-") + l.Text).ToArray());
            var rich = LineDiff.Rich(card.Diff, Language.En);
            StringAssert.Contains("+ D<\u200BT>", rich);
            Assert.AreEqual("  b\n  c\n- d\n+ D<T>\n  e\n  f\n… 2 more lines", PanelRich.Shown(rich).Substring(PanelRich.Shown(rich).IndexOf('\n') + 1));
            Assert.IsFalse(rich.Contains("<T>"), rich);
            // A new file: every line added.
            Assert.IsTrue(LineDiff.Of(null, "x\ny").All(l => l.Kind == DiffKind.Added));
            // A long change is capped, the rest counted.
            var many = LineDiff.Of("", string.Join("\n", Enumerable.Range(0, 500)));
            Assert.AreEqual(LineDiff.MaxLines + 1, many.Count);
            Assert.AreEqual(300, many.Last().Count);
        }

        [Test]
        public void Messages_go_through_the_escape_and_markdown_and_markers_are_their_own_items()
        {
            var compacted = new LogEntry { Id = 4, Kind = "note", Level = "info", Text = "compacted", Code = new NoteCode { Name = "compacted", Args = new List<string> { "auto", "84000" } } };
            var view = View(
                Said(1, "user", "show <color=red>me</color>"),
                Said(2, "thinking", "hmm <b>"),
                Said(3, "assistant", "Use `List<int>` and **bold**"),
                compacted,
                new LogEntry { Id = 5, Kind = "note", Level = "warning", Text = "denied: Bash" },
                new LogEntry { Id = 6, Kind = "some_later_kind", Text = "x<y" });
            var items = Conversation.Build(view, Language.En);
            Assert.AreEqual(new[] { ItemKind.User, ItemKind.Thinking, ItemKind.Assistant, ItemKind.Compaction, ItemKind.Note, ItemKind.Note }, items.Select(i => i.Kind).ToArray());
            Assert.AreEqual("show <color=red>me</color>", PanelRich.Shown(items[0].Rich));
            Assert.AreEqual("Thinking…", PanelRich.Shown(items[1].Rich));
            Assert.AreEqual("hmm <b>", PanelRich.Shown(items[1].Detail));
            Assert.AreEqual("Use List<int> and bold", PanelRich.Shown(items[2].Rich));
            StringAssert.Contains("<b>bold</b>", items[2].Rich);
            Assert.AreEqual("Context compacted (84k tokens before)", PanelRich.Shown(items[3].Rich));
            Assert.AreEqual("コンテキストを圧縮しました (圧縮前 84k トークン)", PanelRich.Shown(Conversation.Build(view, Language.Ja)[3].Rich));
            Assert.AreEqual("Context compacted automatically", Conversation.CompactionWords(new NoteCode { Name = "compacted", Args = new List<string> { "auto", "" } }, Language.En));
            Assert.AreEqual("warning", items[4].Level);
            Assert.AreEqual("x<y", PanelRich.Shown(items[5].Rich));
        }

        [Test]
        public void A_subagent_card_follows_its_call_and_one_without_a_call_comes_last()
        {
            var view = View(Tool(1, "Read", "succeeded", Obj()), Tool(2, "Read", "succeeded", Obj()), Tool(3, "Task", "running", Obj("description", "look around"), toolUseId: "toolu_a"), Tool(4, "Read", "succeeded", Obj()));
            view.Subagents.Add(new SubagentView { ToolUseId = "toolu_a", Status = "running", SubagentType = "Explore", Description = "look <around>", LastTool = "Grep", Tokens = 12300, ToolUses = 4, ElapsedMs = 65000 });
            view.Subagents.Add(new SubagentView { ToolUseId = "toolu_z", Status = "completed", SubagentType = "general", Description = "older", Summary = "Found **it**", Tokens = 5, ToolUses = 1, ElapsedMs = 900 });
            var items = Conversation.Build(view, Language.En);
            Assert.AreEqual(new[] { ItemKind.Tool, ItemKind.Tool, ItemKind.Tool, ItemKind.Subagent, ItemKind.Tool, ItemKind.Subagent }, items.Select(i => i.Kind).ToArray());
            Assert.AreEqual("[Explore] look <around> · running\n4 steps · 12.3k tokens · 1m 05s · last: Grep", PanelRich.Shown(items[3].Rich));
            Assert.AreEqual("[Explore] look <around> · 実行中\n4 ステップ · 12.3k トークン · 1分05秒 · 直近: Grep", PanelRich.Shown(Conversation.Build(view, Language.Ja)[3].Rich));
            Assert.AreEqual("[general] older · completed\n1 steps · 5 tokens · 0.9s\nFound it", PanelRich.Shown(items[5].Rich));
            Assert.AreEqual("ended", SubagentCard.Of(new SubagentView { ToolUseId = "x", Status = "something_new" }).StatusWords(Language.En));
        }

        [Test]
        public void A_long_reply_is_cut_at_a_character_boundary()
        {
            var reply = new string('a', RichText.MaxInput - 1) + "😀" + new string('b', 10);
            var rich = RichText.FromMarkdown(reply);
            StringAssert.EndsWith("a…", rich);
            Assert.IsFalse(rich.Any(char.IsSurrogate), "half of a surrogate pair");
            var whole = RichText.FromMarkdown(new string('a', RichText.MaxInput - 2) + "😀" + "bb");
            StringAssert.EndsWith("😀…", whole);
        }

        [Test]
        public void The_todo_checklist_marks_each_item_by_its_status()
        {
            var view = new SessionView
            {
                Todos = new TodoProgress { Done = 1, Total = 3 },
                TodoItems = new List<TodoItem>
                {
                    new TodoItem { Id = "1", Content = "write <T>", Status = "completed" },
                    new TodoItem { Id = "2", Content = "test it", Status = "in_progress" },
                    new TodoItem { Id = "3", Content = "ship\nit", Status = "pending" },
                },
            };
            Assert.AreEqual("Tasks 1/3", TodoList.Heading(view, Language.En));
            Assert.AreEqual("タスク 1/3", TodoList.Heading(view, Language.Ja));
            var lines = TodoList.Lines(view);
            Assert.AreEqual(new[] { "☑ write <T>", "◐ test it", "☐ ship it" }, lines.Select(l => PanelRich.Shown(l.Rich)).ToArray());
            StringAssert.Contains("<b>", lines[1].Rich);
            Assert.AreEqual("", TodoList.Heading(new SessionView(), Language.En));
        }

        [Test]
        public void The_message_being_written_is_shown_plain_in_batches()
        {
            var batcher = new StreamBatcher();
            batcher.Offer("Hel");
            Assert.IsTrue(batcher.Pump(1000));
            Assert.AreEqual("Hel", batcher.Shown);
            batcher.Offer("Hello");
            Assert.IsFalse(batcher.Pump(1000 + StreamBatcher.IntervalMs - 1), "a delta within the interval waits");
            Assert.AreEqual("Hel", batcher.Shown);
            batcher.Offer("Hello, wor");
            Assert.IsTrue(batcher.Pump(1000 + StreamBatcher.IntervalMs));
            Assert.AreEqual("Hello, wor", batcher.Shown);
            // A new message (the text starts over) shows at once.
            batcher.Offer("Next");
            Assert.IsTrue(batcher.Pump(1000 + StreamBatcher.IntervalMs + 1));
            Assert.AreEqual("Next", batcher.Shown);
            Assert.IsFalse(batcher.Pump(5000), "nothing new");
            // The ended message (empty) shows at once.
            batcher.Offer("");
            Assert.IsTrue(batcher.Pump(5001));

            var view = new SessionView { Streaming = "**x** <color=red>" };
            var item = Conversation.Build(view, Language.En).Single();
            Assert.AreEqual(ItemKind.Streaming, item.Kind);
            Assert.AreEqual("**x** <color=red>", PanelRich.Shown(item.Rich));
            Assert.AreEqual("older", PanelRich.Shown(Conversation.Build(view, Language.En, null, "older").Single().Rich));
        }
    }
}
