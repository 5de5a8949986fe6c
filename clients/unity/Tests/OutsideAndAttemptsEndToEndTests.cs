// The panel's models of issue 29's outside conversations and issue 28's attempts against the real
// `codiva` (stdio) and the real `claude` (mock model server):
// - a Claude Code conversation run by the test in the repository, outside codiva (`claude -p`
//   with the sandbox's HOME, as a user in a plain terminal), is listed (and found by a search),
//   opened read-only with its tool card through the conversation models, continued in place,
//   and the mock's request for the next message carries the earlier turn; another continued in a
//   new worktree on a new branch, resumed there;
// - a group of two claude attempts (one with a model asked for), each writing a file after its
//   permission is answered, checked by the repository's check command, compared through
//   `group/compare` with the figures git and the agent report.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Client;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Rpc;
using NUnit.Framework;
using static Codiva.Tests.Script;

namespace Codiva.Tests
{
    [TestFixture]
    public class OutsideAndAttemptsEndToEndTests
    {
        static readonly TimeSpan Limit = TimeSpan.FromSeconds(120);
        const string First = "OUTSIDE-FIRST: run the echo for me <color=red>now</color>";

        static void Until(ThreadDispatcher main, Func<bool> condition, string what)
        {
            Assert.IsTrue(main.WaitUntil(condition, Limit), "timed out waiting for " + what);
            Assert.IsNull(main.Failure, "a callback failed: " + main.Failure);
        }

        static object OutsideScript() => Rules(
            When("last_user_contains", "outside-tool", Text("The outside turn is **done**.")),
            When("last_user_contains", "OUTSIDE-FIRST", ToolUse("Bash", Obj("command", "echo outside-tool", "description", "say it"))),
            When("last_user_contains", "CONTINUED-IN-CODIVA", Text("Continued where we were.")));

        [Test]
        public void A_claude_conversation_begun_outside_is_listed_read_with_its_tool_card_and_continued()
        {
            using (var world = new World(OutsideScript()))
            using (var main = new ThreadDispatcher())
            {
                // The real CLI in the repository, no codiva in between: one turn with a tool call.
                var printed = Run.Program(Paths.Require(Paths.Claude),
                    "-p " + Run.Quote(First) + " --output-format json --allowedTools Bash",
                    world.Repo, world.AgentEnvironment());
                var outsideId = JsonRead.Str(JsonText.Parse(printed), "session_id");
                Assert.IsNotNull(outsideId, printed);

                var client = new CodivaClient(new StdioTransportFactory(world.Program()), main);
                var outside = new OutsideActions(client);
                var actions = new PanelActions(client);
                var browser = new OutsideBrowser();
                try
                {
                    client.Start();
                    Until(main, () => client.State == ConnectionState.Connected, "the connection");

                    // Listed, with its first instruction as one line of text.
                    main.Invoke(() => outside.Search(browser, ""));
                    Until(main, () => browser.Stage != OutsideStage.Listing, "history/list");
                    Assert.AreEqual(OutsideStage.Listed, browser.Stage, browser.Error);
                    var row = browser.Rows.Single();
                    Assert.AreEqual(outsideId, row.Id);
                    Assert.AreEqual("claude", row.Agent);
                    Assert.AreEqual(First, row.FirstInstruction);
                    Assert.Greater(row.SizeBytes, 0);
                    var rich = row.Rich(Language.En, TimeZoneInfo.Utc);
                    StringAssert.StartsWith(First + "  claude · ", PanelRich.Shown(rich));
                    Assert.IsFalse(rich.Contains("<color=red>"), "the instruction's markup is text: " + rich);
                    Assert.AreEqual("", browser.Footer(Language.En));
                    // A search finds it (any case), another does not.
                    main.Invoke(() => outside.Search(browser, "outside-first"));
                    Until(main, () => browser.Stage != OutsideStage.Listing, "the search");
                    Assert.AreEqual(1, browser.Rows.Count);
                    main.Invoke(() => outside.Search(browser, "nothing like it"));
                    Until(main, () => browser.Stage != OutsideStage.Listing, "the empty search");
                    Assert.AreEqual(0, browser.Rows.Count);
                    Assert.AreEqual("No conversation begun outside codiva in this repository", browser.Footer(Language.En));
                    main.Invoke(() => outside.Search(browser, ""));
                    Until(main, () => browser.Stage != OutsideStage.Listing, "the list again");
                    row = browser.Rows.Single();

                    // Opened read-only: the transcript as conversation items, with its tool card.
                    main.Invoke(() => outside.Open(browser, row));
                    Until(main, () => browser.Stage != OutsideStage.Reading, "history/read");
                    Assert.AreEqual(OutsideStage.Read, browser.Stage, browser.Error);
                    var items = main.Invoke(() => browser.Items(Language.En));
                    Console.WriteLine(string.Join("\n", items.Select(i => i.Kind + ": " + PanelRich.Shown(i.Rich))));
                    Assert.AreEqual(ItemKind.User, items[0].Kind);
                    Assert.AreEqual(First, PanelRich.Shown(items[0].Rich));
                    Assert.IsFalse(items[0].Rich.Contains("<color=red>"), items[0].Rich);
                    var tool = items.Single(i => i.Kind == ItemKind.Tool).Tool;
                    Assert.AreEqual("Bash", tool.Title);
                    Assert.AreEqual("echo outside-tool", tool.Line);
                    StringAssert.Contains("outside-tool", tool.Output);
                    var reply = items.Last(i => i.Kind == ItemKind.Assistant);
                    Assert.AreEqual("The outside turn is done.", PanelRich.Shown(reply.Rich));
                    StringAssert.Contains("<b>done</b>", reply.Rich);
                    // Reading started nothing: codiva has no session.
                    Assert.AreEqual(0, main.Invoke(() => client.Store.Order.Count()));

                    // Continued in codiva, in place: a session that resumes the conversation.
                    main.Invoke(() => outside.Continue(browser, row, newWorktree: false));
                    Until(main, () => browser.Stage != OutsideStage.Adopting, "history/adopt");
                    Assert.AreEqual(OutsideStage.Adopted, browser.Stage, browser.Error);
                    var id = browser.AdoptedSession;
                    Assert.IsNotNull(id);
                    Assert.IsEmpty(browser.Rows, "no longer listed as outside");
                    Assert.IsNull(browser.Open);
                    Until(main, () => client.Store[id]?.Row?.Status == "completed", "the adopted session's row");
                    Until(main, () => client.Store[id].Log.Any(e => e.Kind == "tool"), "the adopted session's log");
                    // Titled by the first instruction (codiva cuts a title as it cuts any).
                    StringAssert.StartsWith("OUTSIDE-FIRST: run the echo for me", main.Invoke(() => client.Store[id].Row.Title));
                    Assert.AreEqual(true, main.Invoke(() => client.Store[id].Row.InPlace));

                    actions.Send(id, "CONTINUED-IN-CODIVA: go on").Wait();
                    var request = world.Mock.WaitForRequest(b => b.Contains("CONTINUED-IN-CODIVA"));
                    StringAssert.Contains("OUTSIDE-FIRST", request, "the resumed request carries the earlier turn");
                    StringAssert.Contains("outside-tool", request, "and its tool result");
                    Until(main, () => client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == "Continued where we were."), "the reply");

                    // Listed no more by codiva either.
                    main.Invoke(() => outside.Search(browser, ""));
                    Until(main, () => browser.Stage != OutsideStage.Listing, "the list after the adoption");
                    Assert.IsEmpty(browser.Rows);
                }
                finally
                {
                    client.Dispose();
                }
            }
        }

        [Test]
        public void A_claude_conversation_begun_outside_continues_in_a_new_worktree()
        {
            using (var world = new World(OutsideScript()))
            using (var main = new ThreadDispatcher())
            {
                var printed = Run.Program(Paths.Require(Paths.Claude),
                    "-p " + Run.Quote(First) + " --output-format json --allowedTools Bash",
                    world.Repo, world.AgentEnvironment());
                var outsideId = JsonRead.Str(JsonText.Parse(printed), "session_id");
                var client = new CodivaClient(new StdioTransportFactory(world.Program()), main);
                var outside = new OutsideActions(client);
                var actions = new PanelActions(client);
                var browser = new OutsideBrowser();
                try
                {
                    client.Start();
                    Until(main, () => client.State == ConnectionState.Connected, "the connection");
                    main.Invoke(() => outside.Search(browser, ""));
                    Until(main, () => browser.Stage != OutsideStage.Listing, "history/list");
                    var row = browser.Rows.Single(r => r.Id == outsideId);
                    main.Invoke(() => outside.Continue(browser, row, newWorktree: true));
                    Until(main, () => browser.Stage != OutsideStage.Adopting, "history/adopt");
                    Assert.AreEqual(OutsideStage.Adopted, browser.Stage, browser.Error);
                    var id = browser.AdoptedSession;
                    Until(main, () => client.Store[id]?.Row != null, "the adopted session's row");
                    var adopted = main.Invoke(() => client.Store[id].Row);
                    Assert.AreNotEqual(true, adopted.InPlace);
                    Assert.AreNotEqual(Path.GetFullPath(world.Repo), Path.GetFullPath(adopted.Worktree), "a new worktree");
                    Assert.IsTrue(Directory.Exists(adopted.Worktree));
                    StringAssert.StartsWith("codiva/", adopted.Branch);

                    actions.Send(id, "CONTINUED-IN-CODIVA: go on").Wait();
                    var request = world.Mock.WaitForRequest(b => b.Contains("CONTINUED-IN-CODIVA"));
                    StringAssert.Contains("OUTSIDE-FIRST", request, "the resumed request carries the earlier turn");
                    Until(main, () => client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == "Continued where we were."), "the reply");
                }
                finally
                {
                    client.Dispose();
                }
            }
        }

        static object AttemptsScript() => Rules(
            When("last_user_contains", "attempt-wrote", Text("Attempt done."), "always"),
            When("last_user_contains", "ATTEMPT", ToolUse("Bash", Obj("command", "echo attempt-wrote | tee attempt.txt", "description", "write the file")), "always"));

        [Test]
        public void A_group_of_two_claude_attempts_is_compared_with_the_figures_git_and_the_agent_report()
        {
            using (var world = new World(AttemptsScript()))
            using (var main = new ThreadDispatcher())
            {
                File.AppendAllText(world.Config, "check = \"test -f attempt.txt\"\n");
                var client = new CodivaClient(new StdioTransportFactory(world.Program()), main);
                var actions = new PanelActions(client);
                try
                {
                    client.Start();
                    Until(main, () => client.State == ConnectionState.Connected, "the connection");
                    GroupResult created = null;
                    main.Invoke(() => client.Request(Methods.GroupCreate, new CreateGroupParams
                    {
                        Prompt = "ATTEMPT: write the file",
                        Attempts = new List<AttemptSpec> { new AttemptSpec { Agent = "claude" }, new AttemptSpec { Agent = "claude", Model = "sonnet" } },
                    }, r => created = r));
                    Until(main, () => created != null, "group/create's answer");
                    var group = created.Group.Id;
                    var ids = created.Group.Attempts.Select(a => a.SessionId).ToList();
                    Assert.AreEqual(2, ids.Count);
                    foreach (var id in ids) client.Watch(id);
                    Until(main, () => client.Store.Groups.ContainsKey(group), "the group in the store");
                    Until(main, () => ids.All(id => client.Store[id]?.Row?.Group == group), "the attempts' rows");

                    // Each asks for its Bash call: allowed from its card.
                    foreach (var id in ids)
                    {
                        var sid = id;
                        if (!main.WaitUntil(() => client.Store[sid]?.Prompts.Any(p => p.Kind == "permission") == true, Limit))
                            Assert.Fail(sid + ": " + main.Invoke(() => client.Store[sid]?.Row?.Status + " " + client.Store[sid]?.Row?.Detail + " " + string.Join(" | ", client.Store[sid]?.Log.Select(e => e.Kind + ":" + e.Text) ?? new string[0])) + "\nmock: " + world.Mock.Log);
                        Until(main, () => client.Store[sid]?.Prompts.Any(p => p.Kind == "permission") == true, "the permission request of " + sid);
                        var card = main.Invoke(() => PermissionCard.Of(sid, client.Store[sid], Language.En));
                        actions.Answer(card.Allow()).Wait();
                    }
                    Until(main, () => ids.All(id => client.Store[id].Row.Check?.State == Known.CheckState.Passed), "both checks passed");

                    GroupCompare compare = null;
                    main.Invoke(() => AttemptsCompare.Load(client, group, c => compare = c));
                    Until(main, () => compare != null, "group/compare");
                    Console.WriteLine(JsonText.Write(Wire.ToJson(compare)));
                    var columns = AttemptsCompare.Columns(compare);
                    Assert.AreEqual(ids, columns.Select(c => c.SessionId).ToList());
                    // No model asked for: named by the model the agent reported, as the list names it.
                    Assert.AreEqual("claude/" + compare.Attempts[0].Session.Model, columns[0].Name);
                    Assert.IsNotEmpty(compare.Attempts[0].Session.Model);
                    Assert.AreEqual("claude/sonnet", columns[1].Name);
                    foreach (var column in columns)
                    {
                        Assert.AreEqual("completed", column.Status);
                        // attempt.txt, untracked: one file, one line, not committed.
                        Assert.AreEqual(1, column.Files);
                        Assert.AreEqual(1, column.Insertions);
                        Assert.AreEqual(0, column.Deletions);
                        Assert.AreEqual(0, column.Commits);
                        Assert.AreEqual(1, column.Uncommitted);
                        Assert.AreEqual(Known.CheckState.Passed, column.Check);
                        Assert.Greater(column.DurationMs, 0);
                        Assert.Greater(column.Tokens ?? 0, 0, "claude reported its usage");
                        StringAssert.StartsWith(column.Name + "  completed · files 1 +1 −0 · commits 0 · ✓ check passed · ", PanelRich.Shown(column.Rich(Language.En)));
                        StringAssert.StartsWith(column.Name + "  completed · ファイル 1 +1 −0 · コミット 0 · ✓ チェック成功 · ", PanelRich.Shown(column.Rich(Language.Ja)));
                    }
                    Assert.AreEqual("Attempts: ATTEMPT: write the file", PanelRich.Shown(AttemptsCompare.Heading(compare, Language.En)));
                }
                finally
                {
                    client.Dispose();
                }
            }
        }
    }
}
