// The fold's rules that the captured sessions of docs/conformance do not reach (a switch of
// agent, a conversation that is gone, dropped log entries, a stream past its cap), each as
// docs/serve-api.md states it; the stream cap with the expectations of codiva's own tests
// (codiva-core session_state_tests/streaming.rs).
using System.Collections.Generic;
using System.Linq;
using System.Text;
using Codiva.Client;
using Codiva.Json;
using Codiva.Protocol;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class SessionViewTests
    {
        const string Id = "s";
        SessionStore store;
        long seq;

        [SetUp]
        public void Start()
        {
            store = new SessionStore();
            store.Reset(new ManagerSnapshot { Seq = 0, Sessions = new List<SessionInfo>() });
            seq = 0;
        }

        SessionView View => store[Id];

        /// A notification as the daemon sends it: `method` with the event's fields (JSON members).
        void Send(string method, string kind, string fields = "")
        {
            var json = "{\"seq\":" + (++seq) + ",\"session_id\":\"" + Id + "\",\"event\":\"" + kind + "\"" + (fields == "" ? "" : "," + fields) + "}";
            Assert.AreEqual(Applied.Applied, store.Apply(Notifications.Read(method, JsonText.Parse(json))), method);
        }

        void Entry(long id, string text, bool update = false, long dropped = 0) =>
            Send("session/log", "log", "\"scope\":\"main\",\"update\":" + (update ? "true" : "false") +
                (dropped == 0 ? "" : ",\"dropped\":" + dropped) +
                ",\"entry\":{\"id\":" + id + ",\"at_ms\":0,\"kind\":\"assistant\",\"text\":\"" + text + "\"}");

        void Stream(string text, bool reset = false) =>
            Send("session/stream", "stream", "\"text\":" + JsonText.Write(text) + ",\"reset\":" + (reset ? "true" : "false"));

        const string Agent = "\"agent\":{\"version\":\"1\",\"commands\":[],\"permission_mode\":\"default\"," +
            "\"models\":[{\"id\":\"default\"},{\"id\":\"opus\"},{\"id\":\"sonnet\"},{\"id\":\"claude-haiku-4-5\"}]}";

        [Test]
        public void A_session_no_event_touched_is_starting_and_empty()
        {
            Send("session/permissionMode", "permission_mode", "\"mode\":\"plan\"");
            Assert.AreEqual("starting", View.Status);
            Assert.IsFalse(View.Connected);
            Assert.AreEqual("", View.Streaming);
            Assert.AreEqual(0, View.Usage.ContextUsed);
            Assert.AreEqual("plan", View.PermissionMode);
        }

        [Test]
        public void The_model_entry_is_worked_out_on_connected_and_on_model()
        {
            Send("session/model", "model", "\"model\":\"claude-sonnet-4-5-20250929\"");
            Assert.IsNull(View.ModelEntry, "no catalog before the agent connected");
            Send("session/connected", "connected", Agent);
            Assert.AreEqual("sonnet", View.ModelEntry, "the one alias that is a word of the name");
            Assert.AreEqual("default", View.PermissionMode, "the agent's, as none was set");
            Send("session/model", "model", "\"model\":\"claude-haiku-4-5\"");
            Assert.AreEqual("claude-haiku-4-5", View.ModelEntry, "the exact id");
            Send("session/model", "model", "\"model\":\"default-opus-sonnet\"");
            Assert.IsNull(View.ModelEntry, "two aliases: none");
            Send("session/model", "model", "\"model\":\"the-default\"");
            Assert.IsNull(View.ModelEntry, "`default` is never a word's match");
            Send("session/model", "model", "\"model\":\"default\"");
            Assert.AreEqual("default", View.ModelEntry, "but it is an exact id");
            Send("session/permissionMode", "permission_mode", "\"mode\":\"plan\"");
            Send("session/connected", "connected", Agent);
            Assert.AreEqual("plan", View.PermissionMode, "a mode already known stays");
        }

        [Test]
        public void A_switch_of_agent_forgets_what_the_previous_one_said_and_a_null_session_id_clears()
        {
            Send("session/connected", "connected", Agent);
            Send("session/agentSession", "agent_session", "\"id\":\"abc\"");
            Send("session/model", "model", "\"model\":\"opus\"");
            Assert.AreEqual("opus", View.ModelEntry);
            Send("session/agentSwitched", "agent_switched", "\"from\":\"Claude Code\",\"to\":\"Codex\"");
            Assert.IsFalse(View.Connected);
            Assert.IsNull(View.Agent);
            Assert.IsNull(View.Model);
            Assert.IsNull(View.ModelEntry);
            Assert.AreEqual("abc", View.AgentSessionId, "the conversation comes as its own event");
            Assert.IsNull(View.PermissionMode, "the previous agent's mode; the one the session goes on in comes as its own event");
            Send("session/permissionMode", "permission_mode", "\"mode\":\"acceptEdits\"");
            Assert.AreEqual("acceptEdits", View.PermissionMode);
            Send("session/agentSession", "agent_session", "\"id\":null");
            Assert.IsNull(View.AgentSessionId);
            Send("session/agentSession", "agent_session", "\"id\":\"def\"");
            Send("session/agentSession", "agent_session");
            Assert.IsNull(View.AgentSessionId, "an absent id is null");
            Send("session/connected", "connected", Agent);
            Send("session/agentExited", "agent_exited", "\"code\":0,\"signal\":null,\"requested\":true");
            Assert.IsFalse(View.Connected);
            Assert.IsNotNull(View.Agent, "an exit keeps what the agent said");
        }

        [Test]
        public void Log_entries_are_appended_by_id_replaced_by_id_and_dropped_from_the_front()
        {
            for (var id = 0; id < 5; id++) Entry(id, "e" + id);
            Entry(3, "again");
            Assert.AreEqual("e3", View.FindEntry(3).Text, "a new entry whose id is not past the last is left out");
            Entry(3, "updated", update: true);
            Assert.AreEqual("updated", View.FindEntry(3).Text);
            Entry(9, "unknown", update: true);
            Assert.IsNull(View.FindEntry(9), "an update of an entry never seen is left out");

            Entry(5, "e5", dropped: 2);
            CollectionAssert.AreEqual(new long[] { 2, 3, 4, 5 }, View.Log.Select(e => e.Id).ToArray());
            Assert.AreEqual(2, View.DroppedEntries);
            Entry(0, "gone", update: true, dropped: 2);
            Assert.IsNull(View.FindEntry(0), "an update of a dropped entry is left out");
            CollectionAssert.AreEqual(new long[] { 2, 3, 4, 5 }, View.Log.Select(e => e.Id).ToArray(), "the same count drops nothing more");
            Entry(6, "e6", dropped: 1);
            Assert.AreEqual(2, View.DroppedEntries, "a smaller count changes nothing");
            Assert.AreEqual(5, View.Log.Count);
            Entry(7, "e7", dropped: 100);
            CollectionAssert.IsEmpty(View.Log, "more dropped than held: all go");
            Assert.AreEqual(100, View.DroppedEntries);
            Send("session/log", "log", "\"scope\":\"subagent\",\"tool_use_id\":\"t\",\"update\":false,\"dropped\":500," +
                "\"entry\":{\"id\":8,\"at_ms\":0,\"kind\":\"subagent_prompt\",\"text\":\"x\"}");
            CollectionAssert.IsEmpty(View.Log, "a subagent's log is not the main one");
            Assert.AreEqual(100, View.DroppedEntries);
        }

        [Test]
        public void Subagents_are_upserted_in_tool_use_id_order_and_prompts_kept_by_request_id()
        {
            foreach (var subagent in new[] { "toolu_b running", "toolu_a running", "toolu_c running", "toolu_a completed" })
                Send("session/subagent", "subagent", "\"subagent\":{\"tool_use_id\":\"" + subagent.Split(' ')[0] + "\",\"background\":false,\"status\":\"" + subagent.Split(' ')[1] +
                    "\",\"tokens\":0,\"tool_uses\":0,\"elapsed_ms\":0}");
            CollectionAssert.AreEqual(new[] { "toolu_a", "toolu_b", "toolu_c" }, View.Subagents.Select(s => s.ToolUseId).ToArray());
            Assert.AreEqual("completed", View.Subagents[0].Status);

            const string Question = "\"prompt\":{\"kind\":\"question\",\"request_id\":\"r1\",\"input\":{},\"questions\":[]}";
            Send("session/question", "prompt_opened", Question);
            Send("session/question", "prompt_opened", Question);
            Send("session/permission", "prompt_opened", "\"prompt\":{\"kind\":\"permission\",\"request_id\":\"r2\",\"tool\":\"Bash\",\"input\":{},\"suggestions\":[]}");
            CollectionAssert.AreEqual(new[] { "r1", "r2" }, View.Prompts.Select(p => p.RequestId).ToArray());
            Send("session/promptClosed", "prompt_closed", "\"request_id\":\"r1\",\"resolution\":\"answered\"");
            CollectionAssert.AreEqual(new[] { "r2" }, View.Prompts.Select(p => p.RequestId).ToArray());
        }

        [Test]
        public void What_the_view_does_not_hold_changes_nothing_and_unknown_notifications_only_count()
        {
            Send("session/status", "status", "\"status\":\"running\",\"detail\":\"step\",\"detail_code\":{\"name\":\"step\",\"args\":[\"1\",\"2\"]}");
            var before = JsonText.Write(Wire.ToJson(View.ToSnapshot()));
            Send("session/mcpServers", "mcp_servers", "\"servers\":[{\"name\":\"ops\",\"status\":\"connected\"}]");
            Send("session/planUsage", "plan_usage", "\"usage\":{\"windows\":[]}");
            Assert.AreEqual(Applied.Applied, store.Apply(Notifications.Read("session/fromTheFuture",
                JsonText.Parse("{\"seq\":" + (++seq) + ",\"session_id\":\"" + Id + "\",\"event\":\"new_kind\",\"whatever\":[1,2]}"))));
            Assert.AreEqual(Applied.Applied, store.Apply(Notifications.Read("session/status", JsonText.Parse("{\"seq\":" + (++seq) + "}"))),
                "a session event without its session is counted and left out");
            Assert.IsInstanceOf<OtherEvent>(Notifications.Read("session/log", null), "params that are no object");
            Assert.AreEqual(Applied.Applied, store.Apply(Notifications.Read("session/stream", new List<object> { 1L })));
            Assert.AreEqual(before, JsonText.Write(Wire.ToJson(View.ToSnapshot())));
            Assert.AreEqual(seq, store.LastSeq);
            Send("session/status", "status", "\"status\":\"completed\",\"detail\":null");
            Assert.AreEqual("completed", View.Status);
            Assert.IsNull(View.DetailCode, "an absent detail_code clears it");
        }

        /// codiva-core's `deltas_past_the_message_cap_are_still_sent`, with the exact text: a
        /// line longer than the cap keeps half the cap, cut where that half starts.
        [Test]
        public void A_stream_past_the_cap_keeps_its_last_half_after_a_marker_of_every_byte_cut()
        {
            var delta = new string('x', 64 * 1024);
            for (var i = 0; i < 4; i++) Stream(delta);
            Assert.AreEqual(TextRules.MaxMessageText, View.Streaming.Length, "the cap itself fits");
            Stream(delta);
            Assert.AreEqual("[196608 more bytes] …\n" + new string('x', 128 * 1024), View.Streaming);
            Stream(delta);
            Stream(delta);
            Stream(delta);
            Assert.AreEqual("[327680 more bytes] …\n" + new string('x', 192 * 1024), View.Streaming);
            Stream("new", reset: true);
            Assert.AreEqual("new", View.Streaming);

            // The cut falls on a character: 🎌 is 4 bytes, the half-cap point is inside one.
            var flags = string.Concat(Enumerable.Repeat("🎌", 65536 + 16)) + "a";
            Stream(flags, reset: true);
            var kept = string.Concat(Enumerable.Repeat("🎌", 32767)) + "a";
            Assert.AreEqual("[" + (4 * (65536 + 16) - 131068) + " more bytes] …\n" + kept, View.Streaming);
            // 日 is 3 bytes: 87382 of them are 262146, the half-cap point (131074) falls inside one.
            Stream(new string('日', 87382), reset: true);
            Assert.AreEqual("[131076 more bytes] …\n" + new string('日', 43690), View.Streaming);
        }

        /// codiva-protocol's `the_kept_end_starts_at_a_line_outside_a_fence`.
        [Test]
        public void The_kept_end_starts_at_a_line_outside_a_fence()
        {
            var text = "intro line\n```\ncode 1\ncode 2\n```\nafter the code\nlast\n";
            var inside = text.IndexOf("code 1", System.StringComparison.Ordinal);
            for (var max = text.Length - inside - 3; max <= text.Length - inside + 2; max++)
                Assert.AreEqual("after the code\nlast\n", text.Substring(TextRules.TailStart(text, max)), "max " + max);
            Assert.AreEqual("last\n", text.Substring(TextRules.TailStart(text, 8)));
            var line = string.Concat(Enumerable.Repeat("日本語", 10));
            for (var max = 0; max < Encoding.UTF8.GetByteCount(line); max++)
                Assert.LessOrEqual(Encoding.UTF8.GetByteCount(line.Substring(TextRules.TailStart(line, max))), max, "max " + max);
        }

        /// codiva-protocol's `the_kept_end_starts_at_a_block_nothing_reaches_into`.
        [Test]
        public void The_kept_end_starts_at_a_block_nothing_reaches_into()
        {
            var text = "# Plan\n\n1. one\n\n2. two\n   more\n\n> quote\n\n- item\n\nLast words\nend\n";
            var last = text.IndexOf("Last", System.StringComparison.Ordinal);
            Assert.AreEqual(last, TextRules.NextBlockStart(text, 0));
            for (var max = text.Length - last; max < text.Length; max++)
                Assert.AreEqual(last, TextRules.TailStart(text, max), "max " + max);
            Assert.AreEqual("end\n", text.Substring(TextRules.TailStart(text, 6)));
            Assert.AreEqual(-1, TextRules.NextBlockStart("a\n\n12", 0));
            Assert.AreEqual(-1, TextRules.NextBlockStart("a\n\n12. x\n", 0));
            Assert.AreEqual(3, TextRules.NextBlockStart("a\n\n12 x\n", 0));
            Assert.AreEqual(-1, TextRules.NextBlockStart("```\na\n\nb\n```\n", 0));
            Assert.AreEqual(-1, TextRules.NextBlockStart("a\nb\n", 0), "not after a blank line");
            long cut;
            string kept;
            foreach (var notCut in new[] { "[12 more bytes]", "[x more bytes] …\nrest", "[ more bytes] …\nrest", "a\n… [3 more bytes]" })
                Assert.IsFalse(TextRules.TryCutFront(notCut, out cut, out kept), notCut);
            Assert.IsTrue(TextRules.TryCutFront("[12 more bytes] …\nrest", out cut, out kept));
            Assert.AreEqual(12, cut);
            Assert.AreEqual("rest", kept);
        }

        /// codiva-core's `the_snapshot_of_a_reply_past_the_cap_keeps_its_end`: Markdown in
        /// Japanese with an emoji, streamed to three times the cap; every cut keeps the end from a
        /// block start, and the marker's count adds up to what was sent.
        [Test]
        public void A_stream_past_the_cap_keeps_its_end_from_a_block_start()
        {
            var sent = new StringBuilder();
            long sentBytes = 0;
            var part = 0;
            var cuts = 0;
            while (sentBytes < 3 * TextRules.MaxMessageText)
            {
                var delta = new StringBuilder();
                for (var i = 0; i < 16; i++)
                {
                    part++;
                    delta.Append("## 第").Append(part).Append("部\n\n日本語の段落 é 🎌 ").Append(part).Append(".\n\n");
                }
                sent.Append(delta);
                sentBytes += Encoding.UTF8.GetByteCount(delta.ToString());
                Stream(delta.ToString());
                var streaming = View.Streaming;
                Assert.LessOrEqual(Encoding.UTF8.GetByteCount(streaming), TextRules.MaxMessageText + 32);
                long cut;
                string kept;
                if (TextRules.TryCutFront(streaming, out cut, out kept))
                {
                    cuts++;
                    Assert.AreEqual(sent.ToString(sent.Length - kept.Length, kept.Length), kept, "the end of what was sent");
                    Assert.AreEqual(sentBytes, cut + Encoding.UTF8.GetByteCount(kept));
                    Assert.IsTrue(kept.StartsWith("## 第", System.StringComparison.Ordinal) || kept.StartsWith("日本語", System.StringComparison.Ordinal), "from a block start: " + kept.Substring(0, 20));
                }
                else Assert.AreEqual(sent.ToString(), streaming);
            }
            Assert.Greater(cuts, 1);
        }
    }
}
