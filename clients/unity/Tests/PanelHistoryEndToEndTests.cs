// The history and login models against the real `codiva` (stdio) and the real `claude` (mock
// model server), their requests sent through PanelActions: a session renamed, discarded in two
// steps (a file written after the preview makes codiva refuse the token and send a fresh
// preview, which is then confirmed), and restored with that file back; and Claude Code's own
// login started through `agents/login`, followed through `agents/loginProgress` and cancelled.
using System;
using System.IO;
using System.Linq;
using Codiva.Client;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Rpc;
using NUnit.Framework;
using static Codiva.Tests.Script;
using static Codiva.Tests.Waits;

namespace Codiva.Tests
{
    [TestFixture]
    public class PanelHistoryEndToEndTests
    {
        [Test]
        public void A_session_is_renamed_discarded_in_two_steps_and_restored_through_the_history()
        {
            using (var world = new World(Rules(When("last_user_contains", "HELLO there", Text("Hi.")))))
            using (var main = new ThreadDispatcher())
            {
                var client = new CodivaClient(new StdioTransportFactory(world.Program()), main);
                var actions = new PanelActions(client);
                try
                {
                    client.Start();
                    Until(main, () => client.State == ConnectionState.Connected, "the connection");
                    SessionInfo created = null;
                    client.CreateSession(new CreateParams { Prompt = "HELLO there" }, r => created = r.Session);
                    Until(main, () => created != null, "session/create's answer");
                    var id = created.Id;
                    actions.Open(id);
                    Until(main, () => client.Store[id]?.Row?.Status == "completed", "the first turn");

                    actions.Rename(History.Rename(id, "Greeting <v2>\u001b[1m")).Wait();
                    Until(main, () => client.Store[id].Row.Title == "Greeting <v2>[1m", "the new title");
                    var row = main.Invoke(() => History.Rows(client.Store, "<v2>").Single());
                    Assert.AreEqual("Greeting <v2>[1m  completed", PanelRich.Shown(row.Rich(Language.En)));
                    Assert.IsTrue(row.CanDiscard);
                    Assert.IsFalse(row.CanRestore);

                    // The preview; then a file appears; the token of the preview is refused with a fresh one.
                    var flow = new DiscardFlow(id);
                    main.Invoke(() => actions.Discard(flow, flow.Begin()));
                    Until(main, () => flow.Stage == DiscardStage.Confirming, "the preview");
                    Assert.IsEmpty(flow.Preview.Uncommitted);
                    File.WriteAllText(Path.Combine(created.Worktree, "late.txt"), "written after the preview\n");
                    main.Invoke(() => actions.Discard(flow, flow.Confirm()));
                    Until(main, () => flow.Stage != DiscardStage.Confirmed, "the refusal");
                    Assert.AreEqual(DiscardStage.Confirming, flow.Stage, flow.Error);
                    Assert.IsTrue(flow.Changed);
                    Assert.AreEqual(new[] { "late.txt" }, flow.Preview.Uncommitted.ToArray());
                    StringAssert.StartsWith("The session changed since the preview", flow.Question(Language.En));
                    Assert.AreEqual("completed", main.Invoke(() => client.Store[id].Row.Phase == "discarded" ? "discarded" : client.Store[id].Row.Status), "nothing was discarded");
                    main.Invoke(() => actions.Discard(flow, flow.Confirm()));
                    Until(main, () => flow.Stage == DiscardStage.Done, "the discard");
                    Until(main, () => client.Store[id].Row.Phase == "discarded", "the discarded row");
                    Assert.IsFalse(File.Exists(Path.Combine(created.Worktree, "late.txt")));

                    row = main.Invoke(() => History.Rows(client.Store).Single(r => r.Id == id));
                    Assert.IsTrue(row.CanRestore);
                    Assert.IsFalse(row.CanDiscard);
                    Assert.AreEqual("Greeting <v2>[1m  discarded", PanelRich.Shown(row.Rich(Language.En)));
                    actions.Restore(History.Restore(row)).Wait();
                    Until(main, () => client.Store[id].Row.Phase == "active", "the restored row");
                    Assert.AreEqual("written after the preview\n", File.ReadAllText(Path.Combine(created.Worktree, "late.txt")), "restored as it was");
                }
                finally
                {
                    client.Dispose();
                }
            }
        }

        [Test]
        public void Claude_Codes_login_is_started_followed_and_cancelled_through_the_login_model()
        {
            using (var world = new World(Rules()))
            using (var main = new ThreadDispatcher())
            {
                var client = new CodivaClient(new StdioTransportFactory(world.Program()), main);
                var feed = new PanelFeed(client, main);
                var actions = new PanelActions(client);
                var login = new LoginModel("claude");
                feed.LoginProgress += progress => login.Apply(progress);
                try
                {
                    client.Start();
                    Until(main, () => client.State == ConnectionState.Connected, "the connection");
                    // agents/list: the agent picker and the login check.
                    System.Collections.Generic.List<AgentAvailability> agents = null;
                    main.Invoke(() => actions.LoadAgents(list => agents = list));
                    Until(main, () => agents != null, "agents/list");
                    var claude = Pickers.Agents(agents, null, Language.En).Single(i => i.Value == "claude");
                    Assert.IsTrue(claude.Enabled);
                    Assert.IsTrue(claude.Current, "the default agent");
                    var checkedState = agents.Single(a => a.Id == "claude").Login;
                    // The sandbox's agent has an API key (ANTHROPIC_API_KEY): its own check says so.
                    Assert.AreEqual("logged_in", checkedState.State);
                    login.SetChecked(checkedState);
                    StringAssert.StartsWith("Logged in", login.Describe(Language.En));
                    main.Invoke(() => actions.Login(login));
                    Until(main, () => login.Stage != LoginStage.Starting, "the login's id");
                    Assert.AreEqual(LoginStage.Running, login.Stage, login.Error);
                    Assert.IsNull(main.Invoke(() => actions.Login(login)), "one login at a time");
                    // Claude Code prints the page to open and reads the code it shows.
                    Until(main, () => login.Url != null || login.Stage != LoginStage.Running, "the login page");
                    Console.WriteLine("login: " + login.Stage + " " + login.Url + " accepts code: " + login.AcceptsCode + " | " + string.Join(" / ", login.Output));
                    Assert.AreEqual(LoginStage.Running, login.Stage, login.Error);
                    StringAssert.StartsWith("https://", login.Url);
                    Assert.IsTrue(login.AcceptsCode);
                    Assert.AreEqual("Paste the code the page shows", login.Describe(Language.En));
                    main.Invoke(() => actions.CancelLogin(login.Cancel()));
                    Until(main, () => login.Stage == LoginStage.Cancelled, "the cancelled login");
                    Assert.AreEqual("Login cancelled", login.Describe(Language.En));
                    Assert.IsFalse(login.OffersLogin, "the agent's check still says logged in");
                }
                finally
                {
                    feed.Dispose();
                    client.Dispose();
                }
            }
        }
    }
}
