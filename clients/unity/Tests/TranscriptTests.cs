// The transcript's render cap (Codiva.Panel.TranscriptWindow) over conversations built by
// Conversation.Build, and what the user opened in it (ExpandMemory).
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
    public class TranscriptTests
    {
        static SessionView View(int messages, int from = 1)
        {
            var view = new SessionView();
            for (var id = from; id < from + messages; id++) view.Log.Add(new LogEntry { Id = id, Kind = "user", Text = "m" + id });
            return view;
        }

        static void Say(SessionView view, int more)
        {
            var next = view.Log.Count == 0 ? 1 : view.Log[view.Log.Count - 1].Id + 1;
            for (var i = 0; i < more; i++) view.Log.Add(new LogEntry { Id = next + i, Kind = "user", Text = "m" + (next + i) });
        }

        static string FirstKey(TranscriptSlice slice) => slice.Items[0].Key;

        [Test]
        public void A_long_conversation_draws_its_last_items_up_to_the_cap()
        {
            var window = new TranscriptWindow();
            var slice = window.Apply(Conversation.Build(View(400), Language.En));
            Assert.AreEqual(300, slice.Items.Count);
            Assert.AreEqual(100, slice.Hidden);
            Assert.AreEqual("101", FirstKey(slice));
            Assert.AreEqual("400", slice.Items.Last().Key);
            Assert.AreEqual("100 earlier items not shown", PanelRich.Shown(slice.HiddenRich(Language.En)));
            Assert.AreEqual("以前の 100 件は表示していません", PanelRich.Shown(slice.HiddenRich(Language.Ja)));
            // A short one is drawn whole, with nothing hidden.
            var shortOne = new TranscriptWindow().Apply(Conversation.Build(View(40), Language.En));
            Assert.AreEqual(40, shortOne.Items.Count);
            Assert.AreEqual("", shortOne.HiddenRich(Language.En));
        }

        [Test]
        public void New_items_are_added_to_the_drawn_part_and_the_oldest_are_pruned_in_one_batch_past_the_slack()
        {
            var window = new TranscriptWindow(cap: 10, slack: 4);
            var view = View(10);
            Assert.AreEqual("1", FirstKey(window.Apply(Conversation.Build(view, Language.En))));
            var firsts = new List<string>();
            var counts = new List<int>();
            for (var i = 0; i < 10; i++)
            {
                Say(view, 1);
                var slice = window.Apply(Conversation.Build(view, Language.En));
                firsts.Add(FirstKey(slice));
                counts.Add(slice.Items.Count);
                Assert.AreEqual(view.Log.Last().Id.ToString(), slice.Items.Last().Key, "the newest is always drawn");
            }
            // 11…14 drawn from the same first item; the 15th prunes five at once, down to the cap.
            Assert.AreEqual(new[] { 11, 12, 13, 14, 10, 11, 12, 13, 14, 10 }, counts.ToArray());
            Assert.AreEqual(new[] { "1", "1", "1", "1", "6", "6", "6", "6", "6", "11" }, firsts.ToArray());
        }

        [Test]
        public void Show_earlier_draws_a_slack_more_and_keeps_them_drawn()
        {
            var window = new TranscriptWindow(cap: 10, slack: 4);
            var view = View(30);
            Assert.AreEqual(20, window.Apply(Conversation.Build(view, Language.En)).Hidden);
            window.ShowEarlier();
            var slice = window.Apply(Conversation.Build(view, Language.En));
            Assert.AreEqual(16, slice.Hidden);
            Assert.AreEqual("17", FirstKey(slice));
            // The revealed ones stay while new items come (up to the slack again).
            Say(view, 4);
            Assert.AreEqual("17", FirstKey(window.Apply(Conversation.Build(view, Language.En))));
            Say(view, 1);
            Assert.AreEqual(14, window.Apply(Conversation.Build(view, Language.En)).Items.Count);
            // Never before the first item.
            var all = new TranscriptWindow(cap: 10, slack: 4);
            var small = View(12);
            all.Apply(Conversation.Build(small, Language.En));
            all.ShowEarlier();
            Assert.AreEqual(0, all.Apply(Conversation.Build(small, Language.En)).Hidden);
        }

        [Test]
        public void The_first_drawn_item_folded_into_a_group_starts_the_window_at_the_group()
        {
            var window = new TranscriptWindow(cap: 3, slack: 1);
            var view = new SessionView();
            view.Log.Add(new LogEntry { Id = 1, Kind = "user", Text = "go" });
            view.Log.Add(new LogEntry { Id = 2, Kind = "tool", Name = "Read", Title = "Read", Status = "succeeded", Input = Obj("file_path", "a"), ToolUseId = "t2" });
            view.Log.Add(new LogEntry { Id = 3, Kind = "tool", Name = "Read", Title = "Read", Status = "succeeded", Input = Obj("file_path", "b"), ToolUseId = "t3" });
            view.Log.Add(new LogEntry { Id = 4, Kind = "tool", Name = "Read", Title = "Read", Status = "running", Input = Obj("file_path", "c"), ToolUseId = "t4" });
            for (var id = 5; id <= 6; id++) view.Log.Add(new LogEntry { Id = id, Kind = "assistant", Text = "x" + id });
            // 6 items, cap 3 + slack 1: drawn from call 4.
            Assert.AreEqual("4", FirstKey(window.Apply(Conversation.Build(view, Language.En))));
            // Call 4 finishes: calls 2, 3 and 4 are one group (key "2"); the window starts at it.
            view.Log[3].Status = "succeeded";
            var slice = window.Apply(Conversation.Build(view, Language.En));
            Assert.AreEqual(ItemKind.ToolGroup, slice.Items[0].Kind);
            Assert.AreEqual("2", FirstKey(slice));
            Assert.AreEqual(1, slice.Hidden);
            // The log loses its front (codiva's cap): from the first item there is.
            view.Log.RemoveRange(0, 4);
            Assert.AreEqual("5", FirstKey(window.Apply(Conversation.Build(view, Language.En))));
        }

        [Test]
        public void Expand_state_is_remembered_by_session_key_and_part_across_prunes_and_sessions()
        {
            var memory = new ExpandMemory();
            // Untouched: the default (a running call open, a finished one closed).
            Assert.IsTrue(memory.IsOpen("s1", "7", null, true));
            Assert.IsFalse(memory.IsOpen("s1", "7", null, false));
            memory.Set("s1", "7", null, false);
            memory.Set("s1", "9", "output", true);
            memory.Set("s1", "2", null, true);
            memory.Set("s2", "3", null, true);
            Assert.IsFalse(memory.IsOpen("s1", "7", null, true), "closed by the user while running stays closed");
            Assert.IsTrue(memory.IsOpen("s1", "9", "output", false));
            Assert.IsFalse(memory.IsOpen("s1", "9", null, false), "a part is apart from its item");
            Assert.IsFalse(memory.IsOpen("s2", "7", null, false), "another session's item");
            Assert.AreEqual(new[] { "2" }, memory.Opened("s1").ToArray());
            Assert.AreEqual(new[] { "3" }, memory.Opened("s2").ToArray());

            // A group opened in the memory is shown call by call by Conversation.Build.
            var view = new SessionView();
            for (var id = 2; id <= 4; id++)
                view.Log.Add(new LogEntry { Id = id, Kind = "tool", Name = "Read", Title = "Read", Status = "succeeded", Input = Obj("file_path", "f" + id), ToolUseId = "t" + id });
            Assert.AreEqual(3, Conversation.Build(view, Language.En, memory.Opened("s1")).Count);
            Assert.AreEqual(1, Conversation.Build(view, Language.En, memory.Opened("s2")).Count);
        }

        [Test]
        public void The_memory_forgets_its_oldest_choices_past_its_capacity()
        {
            var memory = new ExpandMemory(capacity: 3);
            memory.Set("s", "1", null, true);
            memory.Set("s", "2", null, true);
            memory.Set("s", "3", null, true);
            memory.Set("s", "1", null, true); // touched again: now the newest
            memory.Set("s", "4", null, true);
            Assert.AreEqual(3, memory.Count);
            Assert.IsFalse(memory.IsOpen("s", "2", null, false));
            Assert.IsTrue(memory.IsOpen("s", "1", null, false));
            Assert.AreEqual(new[] { "3", "1", "4" }, memory.Opened("s").ToArray());
        }
    }
}
