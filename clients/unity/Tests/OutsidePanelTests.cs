// Unit rules of the models of the conversations begun outside codiva (OutsideConversations,
// OutsideBrowser) and of a group's compare figures (AttemptsCompare). The compare answer below is
// group/compare's, captured from the real codiva by
// OutsideAndAttemptsEndToEndTests.A_group_of_two_claude_attempts_is_compared_with_the_figures_git_and_the_agent_report
// (two claude attempts against the mock), not written by hand.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Rpc;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class OutsideConversationsTests
    {
        static OutsideConversation Conv(string id, long modified, string first, string agent = "claude") => new OutsideConversation
        {
            Agent = agent, Id = id, Cwd = "/repo", ModifiedMs = modified, SizeBytes = 2048, FirstInstruction = first,
        };

        static HistoryListResult Listed(params OutsideConversation[] conversations) =>
            new HistoryListResult { Conversations = conversations.ToList(), More = false };

        [Test]
        public void Rows_are_newest_first_and_their_outside_text_is_one_escaped_line()
        {
            var rows = OutsideConversations.Rows(Listed(
                Conv("old", 1000, "first"),
                Conv("new", 1796633913384, "fix <b>it</b>\nnow\u202E\u001b[31m"),
                new OutsideConversation { Agent = "claude", Id = null, Cwd = "/repo" }));
            Assert.AreEqual(new[] { "new", "old" }, rows.Select(r => r.Id).ToArray());
            Assert.AreEqual("fix <b>it</b> now[31m", rows[0].FirstInstruction);
            var rich = rows[0].Rich(Language.En, TimeZoneInfo.Utc);
            Assert.AreEqual("fix <b>it</b> now[31m  claude · 2026-12-07 08:58 · 2 KB\n/repo", PanelRich.Shown(rich));
            Assert.IsFalse(rich.Contains("<b>it</b>"), rich);
            // No first instruction in the record's head: said so, in the panel's language.
            rows = OutsideConversations.Rows(Listed(Conv("x", 0, null)));
            StringAssert.StartsWith("(指示なし)  claude · 1970-01-01 00:00", PanelRich.Shown(rows[0].Rich(Language.Ja, TimeZoneInfo.Utc)));
        }

        [Test]
        public void The_search_is_sent_trimmed_and_empty_is_every_conversation()
        {
            Assert.IsNull(OutsideConversations.List("   ").Query);
            Assert.IsNull(OutsideConversations.List(null).Query);
            Assert.AreEqual("login bug", OutsideConversations.List("  login bug ").Query);
        }

        [Test]
        public void Continuing_names_the_conversation_and_the_place()
        {
            var row = OutsideConversations.Rows(Listed(Conv("abc", 1, "x", agent: "codex")))[0];
            var here = OutsideConversations.Adopt(row, newWorktree: false);
            Assert.AreEqual(new[] { "codex", "abc", "/repo", "in_place" }, new[] { here.Agent, here.Id, here.Cwd, here.Place });
            Assert.AreEqual("worktree", OutsideConversations.Adopt(row, newWorktree: true).Place);
            var read = row.Ref;
            Assert.AreEqual(new[] { "codex", "abc", "/repo" }, new[] { read.Agent, read.Id, read.Cwd });
        }

        static HistoryReadResult Read(long skipped, long dropped, params string[] entries) => new HistoryReadResult
        {
            Entries = entries.Select(e => Wire.FromJson<LogEntry>(JsonText.Parse(e))).ToList(),
            SkippedBytes = skipped,
            DroppedEntries = dropped,
        };

        [Test]
        public void A_transcript_reads_as_conversation_items_with_its_markup_as_text_and_tool_cards_folded()
        {
            var read = Read(0, 0,
                "{\"id\":1,\"at_ms\":0,\"kind\":\"user\",\"text\":\"run <color=red>it</color>\"}",
                "{\"id\":2,\"at_ms\":0,\"kind\":\"tool\",\"name\":\"Bash\",\"title\":\"Bash\",\"input\":{\"command\":\"ls\"},\"status\":\"succeeded\",\"result\":\"a.txt\"}",
                "{\"id\":3,\"at_ms\":0,\"kind\":\"tool\",\"name\":\"Bash\",\"title\":\"Bash\",\"input\":{\"command\":\"pwd\"},\"status\":\"succeeded\",\"result\":\"/r\"}",
                "{\"id\":4,\"at_ms\":0,\"kind\":\"tool\",\"name\":\"Read\",\"title\":\"Read\",\"input\":{\"file_path\":\"/r/a.txt\"},\"status\":\"failed\"}",
                "{\"id\":5,\"at_ms\":0,\"kind\":\"assistant\",\"text\":\"Done with `<size=99>` and **bold**.\"}");
            var items = OutsideConversations.Items(read, Language.En);
            Assert.AreEqual(new[] { ItemKind.User, ItemKind.Tool, ItemKind.Tool, ItemKind.Tool, ItemKind.Assistant }, items.Select(i => i.Kind).ToArray());
            Assert.AreEqual("run <color=red>it</color>", PanelRich.Shown(items[0].Rich));
            Assert.IsFalse(items[0].Rich.Contains("<color=red>"), items[0].Rich);
            Assert.AreEqual(new[] { "ls", "pwd", "a.txt" }, items.Where(i => i.Kind == ItemKind.Tool).Select(i => i.Tool.Line).ToArray());
            Assert.AreEqual("a.txt", items[1].Tool.Output);
            Assert.AreEqual("failed", items[3].Tool.State);
            Assert.AreEqual("Done with <size=99> and bold.", PanelRich.Shown(items[4].Rich));
            Assert.IsFalse(items[4].Rich.Contains("<size=99>"), items[4].Rich);
            // Three completed calls in a row fold into one group, as in a session.
            var three = Read(0, 0,
                "{\"id\":1,\"at_ms\":0,\"kind\":\"tool\",\"name\":\"Bash\",\"input\":{\"command\":\"a\"},\"status\":\"succeeded\"}",
                "{\"id\":2,\"at_ms\":0,\"kind\":\"tool\",\"name\":\"Bash\",\"input\":{\"command\":\"b\"},\"status\":\"succeeded\"}",
                "{\"id\":3,\"at_ms\":0,\"kind\":\"tool\",\"name\":\"Bash\",\"input\":{\"command\":\"c\"},\"status\":\"succeeded\"}");
            var folded = OutsideConversations.Items(three, Language.En);
            Assert.AreEqual(ItemKind.ToolGroup, folded.Single().Kind);
            Assert.AreEqual(3, OutsideConversations.Items(three, Language.En, new HashSet<string> { folded[0].Key }).Count);
        }

        [Test]
        public void What_a_large_record_left_out_is_said_first()
        {
            var read = Read(200L * 1024 * 1024 - 16L * 1024 * 1024, 12, "{\"id\":1,\"at_ms\":0,\"kind\":\"user\",\"text\":\"hi\"}");
            var items = OutsideConversations.Items(read, Language.En);
            Assert.AreEqual(ItemKind.Note, items[0].Kind);
            Assert.AreEqual("The record's first 184 MB were not read · Older entries left out: 12", PanelRich.Shown(items[0].Rich));
            Assert.AreEqual("記録の先頭 184 MB は読んでいません · 省いた古いエントリ: 12 件", PanelRich.Shown(OutsideConversations.Items(read, Language.Ja)[0].Rich));
            Assert.AreEqual(ItemKind.User, OutsideConversations.Items(Read(0, 0, "{\"id\":1,\"at_ms\":0,\"kind\":\"user\",\"text\":\"hi\"}"), Language.En)[0].Kind);
        }

        [Test]
        public void Sizes_are_worded_in_1024s()
        {
            Assert.AreEqual(new[] { "0 B", "1023 B", "1 KB", "1.5 KB", "100 KB", "1 MB", "200 MB", "3.2 GB" },
                new[] { 0L, 1023, 1024, 1536, 102400, 1048576, 209715200, 3435973837 }.Select(OutsideConversations.Size).ToArray());
        }

        [Test]
        public void An_answer_to_an_earlier_search_or_reading_is_not_shown()
        {
            var browser = new OutsideBrowser();
            browser.Search("first");
            var first = browser.Listing;
            browser.Search("second");
            browser.Listed(Listed(Conv("second", 1, "x")), browser.Listing);
            browser.Listed(Listed(Conv("first", 2, "y")), first);
            Assert.AreEqual(new[] { "second" }, browser.Rows.Select(r => r.Id).ToArray());
            Assert.AreEqual("second", browser.Query);
            var row = browser.Rows[0];
            browser.Begin(row);
            var earlier = browser.Reading;
            browser.Begin(row);
            browser.Opened(Read(0, 0, "{\"id\":1,\"at_ms\":0,\"kind\":\"user\",\"text\":\"late\"}"), earlier);
            Assert.AreEqual(OutsideStage.Reading, browser.Stage);
            Assert.IsNull(browser.Read);
            browser.Opened(Read(0, 0, "{\"id\":1,\"at_ms\":0,\"kind\":\"user\",\"text\":\"now\"}"), browser.Reading);
            Assert.AreEqual("now", PanelRich.Shown(browser.Items(Language.En)[0].Rich));
        }

        [Test]
        public void The_browser_follows_list_read_adopt_and_refusals()
        {
            var browser = new OutsideBrowser();
            Assert.IsNull(browser.Search(" ").Query);
            Assert.AreEqual(OutsideStage.Listing, browser.Stage);
            browser.Listed(Listed(Conv("a", 2, "one"), Conv("b", 1, "two")));
            Assert.AreEqual(2, browser.Rows.Count);
            Assert.AreEqual("", browser.Footer(Language.En));
            var row = browser.Rows[0];
            var asked = browser.Begin(row);
            Assert.AreEqual("a", asked.Id);
            Assert.IsEmpty(browser.Items(Language.En), "nothing shown before the answer");
            browser.Opened(Read(0, 0, "{\"id\":1,\"at_ms\":0,\"kind\":\"user\",\"text\":\"one\"}"));
            Assert.AreEqual(1, browser.Items(Language.En).Count);
            Assert.AreEqual("worktree", browser.Continue(row, newWorktree: true).Place);
            browser.Refused(new RpcException(-32002, "another session runs in this directory\n(in_place_busy)", null));
            Assert.AreEqual(OutsideStage.Failed, browser.Stage);
            Assert.AreEqual("another session runs in this directory (in_place_busy)", browser.Error);
            Assert.AreEqual(2, browser.Rows.Count, "a refusal takes nothing away");
            browser.Continue(row, newWorktree: false);
            browser.Adopted(new SessionResult { Session = new SessionInfo { Id = "s1" } }, row);
            Assert.AreEqual("s1", browser.AdoptedSession);
            Assert.AreEqual(new[] { "b" }, browser.Rows.Select(r => r.Id).ToArray());
            Assert.IsNull(browser.Open, "the adopted conversation is closed: it is a session now");
            browser.Listed(new HistoryListResult { Conversations = new List<OutsideConversation>(), More = false });
            Assert.AreEqual("No conversation begun outside codiva in this repository", browser.Footer(Language.En));
            browser.Listed(new HistoryListResult { Conversations = new List<OutsideConversation> { Conv("c", 1, "x") }, More = true });
            Assert.AreEqual("Only the newest 1 are listed: search to narrow", browser.Footer(Language.En));
        }
    }

    [TestFixture]
    public class AttemptsCompareTests
    {
        const string Captured = @"{""group"":{""id"":""g-attempt-write-the-file"",""instruction"":""ATTEMPT: write the file"",""attempts"":[{""session_id"":""attempt-write-the-file-claude"",""agent"":""claude""},{""session_id"":""attempt-write-the-file-claude-sonnet"",""agent"":""claude"",""model"":""sonnet""}],""created_at"":1796634050787},""attempts"":[{""session"":{""id"":""attempt-write-the-file-claude"",""title"":""ATTEMPT: write the file"",""prompt"":""ATTEMPT: write the file"",""branch"":""codiva/attempt-write-the-file-claude"",""worktree"":""/tmp/codiva-unity-cc03d14194/repo/.codiva/worktrees/attempt-write-the-file-claude"",""base"":""main"",""status"":""completed"",""agent"":""claude"",""active_ms"":742,""created_at"":1796634050788,""pending_prompts"":0,""todos"":{""done"":0,""total"":0},""agent_session_id"":""c000d1e6-1557-4c2a-ab75-4e59d272b1a9"",""check"":{""state"":""passed"",""command"":""test -f attempt.txt"",""started_at"":1796634052393,""trigger"":""turn_completed"",""duration_ms"":10,""exit_code"":0},""cost_usd"":0.11366799999999999,""group"":""g-attempt-write-the-file"",""model"":""claude-opus-5-5"",""prs"":{""checked"":false,""prs"":[],""watched"":false},""resources"":{""rss_bytes"":222240768,""cpu_percent"":0,""processes"":2},""phase"":""active""},""spec"":{""agent"":""claude""},""duration_ms"":742,""tokens"":{""input"":28292,""output"":2,""cache_read"":0,""cache_creation"":0},""work"":{""files"":[{""path"":""attempt.txt"",""added"":1,""deleted"":0}],""insertions"":1,""deletions"":0,""commits"":0,""uncommitted"":1}},{""session"":{""id"":""attempt-write-the-file-claude-sonnet"",""title"":""ATTEMPT: write the file"",""prompt"":""ATTEMPT: write the file"",""branch"":""codiva/attempt-write-the-file-claude-sonnet"",""worktree"":""/tmp/codiva-unity-cc03d14194/repo/.codiva/worktrees/attempt-write-the-file-claude-sonnet"",""base"":""main"",""status"":""completed"",""agent"":""claude"",""active_ms"":852,""created_at"":1796634050788,""pending_prompts"":0,""todos"":{""done"":0,""total"":0},""agent_session_id"":""c060c8d9-d0a4-46f9-8c53-3c1b31f50e83"",""check"":{""state"":""passed"",""command"":""test -f attempt.txt"",""started_at"":1796634053200,""trigger"":""turn_completed"",""duration_ms"":1,""exit_code"":0},""cost_usd"":0.056586,""group"":""g-attempt-write-the-file"",""model"":""claude-sonnet-5-5"",""prs"":{""checked"":false,""prs"":[],""watched"":false},""resources"":{""rss_bytes"":152625152,""cpu_percent"":0,""processes"":2},""phase"":""active""},""spec"":{""agent"":""claude"",""model"":""sonnet""},""duration_ms"":852,""tokens"":{""input"":28168,""output"":2,""cache_read"":0,""cache_creation"":0},""work"":{""files"":[{""path"":""attempt.txt"",""added"":1,""deleted"":0}],""insertions"":1,""deletions"":0,""commits"":0,""uncommitted"":1}}]}";

        static GroupCompare Compare() => Wire.FromJson<GroupCompare>(JsonText.Parse(Captured));

        [Test]
        public void Each_attempt_is_a_column_with_the_figures_codiva_reported()
        {
            var compare = Compare();
            var columns = AttemptsCompare.Columns(compare);
            Assert.AreEqual(new[] { "attempt-write-the-file-claude", "attempt-write-the-file-claude-sonnet" }, columns.Select(c => c.SessionId).ToArray());
            // The model asked for names an attempt; without one, the model the agent reported.
            Assert.AreEqual(new[] { "claude/claude-opus-5-5", "claude/sonnet" }, columns.Select(c => c.Name).ToArray());
            var first = columns[0];
            Assert.AreEqual(1, first.Files);
            Assert.AreEqual(1, first.Insertions);
            Assert.AreEqual(0, first.Commits);
            Assert.AreEqual("passed", first.Check);
            Assert.AreEqual(742, first.DurationMs);
            Assert.AreEqual(28294, first.Tokens);
            Assert.AreEqual("claude/claude-opus-5-5  completed · files 1 +1 −0 · commits 0 · ✓ check passed · 0.7s · tokens 28.2k · $0.11", PanelRich.Shown(first.Rich(Language.En)));
            Assert.AreEqual("claude/sonnet  completed · ファイル 1 +1 −0 · コミット 0 · ✓ チェック成功 · 0.8秒 · トークン 28.1k · $0.06", PanelRich.Shown(columns[1].Rich(Language.Ja)));
            Assert.AreEqual("Attempts: ATTEMPT: write the file", PanelRich.Shown(AttemptsCompare.Heading(compare, Language.En)));
            Assert.AreEqual(compare.Group.Id, AttemptsCompare.Of(compare.Group.Id).GroupId);
        }

        [Test]
        public void A_figure_nobody_reported_is_absent_never_zero()
        {
            var compare = Compare();
            var figures = compare.Attempts[0];
            figures.Work = null;
            figures.Tokens = null;
            figures.Session.CostUsd = null;
            figures.Session.Check = null;
            var column = AttemptsCompare.Columns(compare)[0];
            Assert.IsNull(column.Files);
            Assert.IsNull(column.Tokens);
            Assert.AreEqual("claude/claude-opus-5-5  completed · no worktree · no check · 0.7s", PanelRich.Shown(column.Rich(Language.En)));
            figures.GitError = "fatal: <bad> object";
            var rich = AttemptsCompare.Columns(compare)[0].Rich(Language.En);
            Assert.AreEqual("claude/claude-opus-5-5  completed · fatal: <bad> object · no check · 0.7s", PanelRich.Shown(rich));
            Assert.IsFalse(rich.Contains("<bad>"), rich);
        }

        [Test]
        public void The_kept_attempt_says_so_and_every_check_state_has_words()
        {
            var compare = Compare();
            compare.Group.Kept = "attempt-write-the-file-claude-sonnet";
            var columns = AttemptsCompare.Columns(compare);
            Assert.IsFalse(columns[0].Kept);
            Assert.IsTrue(columns[1].Kept);
            StringAssert.StartsWith("claude/sonnet  kept · ", PanelRich.Shown(columns[1].Rich(Language.En)));
            foreach (var state in Known.CheckState.Values.Where(s => s != Known.CheckState.Unknown))
                foreach (var language in new[] { Language.En, Language.Ja })
                    Assert.AreNotEqual(state, AttemptsCompare.CheckWords(state, language), state);
            Assert.AreEqual("later_state", AttemptsCompare.CheckWords("later\u001b_state", Language.En));
        }
    }
}
