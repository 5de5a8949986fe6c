// The client against the real `codiva` and the real `claude` (mock model server): a session is
// created, streams, asks a permission and a question that the client answers, is interrupted,
// takes an image; every event arrives in `seq` order, and the recorded stream with one event
// removed is detected as a gap and repaired by a resync.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Client;
using Codiva.Json;
using Codiva.Protocol;
using Codiva.Rpc;
using NUnit.Framework;
using static Codiva.Tests.Script;
using static Codiva.Tests.Waits;

namespace Codiva.Tests
{
    [TestFixture("daemon")]
    [TestFixture("stdio")]
    public class CoreEndToEndTests
    {
        readonly string transport;
        public CoreEndToEndTests(string transport) { this.transport = transport; }

        /// The transport under test: the repository's daemon over its Unix socket (what the panel
        /// uses), or `codiva serve --stdio` as a child.
        ITransportFactory Transport(World world) => transport == "daemon"
            ? (ITransportFactory)new DaemonSocketTransportFactory(world.Program())
            : new StdioTransportFactory(world.Program());

        // A 1x1 PNG (the smallest valid one), sent as an image attachment.
        const string Png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

        static object ScriptOfTheSession() => Rules(
            When("last_user_contains", "PERM write the marker", ToolUse("Bash", Obj(
                "command", "printf 'marker\\n' > marker.txt && echo wrote-marker",
                "description", "Write the marker file"))),
            When("last_user_contains", "wrote-marker", ToolUse("AskUserQuestion", Obj(
                "questions", List(Obj(
                    "question", "Which greeting?",
                    "header", "Greeting",
                    "multiSelect", false,
                    "options", List(
                        Obj("label", "こんにちは", "description", "Japanese"),
                        Obj("label", "Hello", "description", "English"))))))),
            When("last_user_contains", "こんにちは", Text(string.Concat(Enumerable.Repeat("streaming on and on ", 150)), 4, 40)),
            When("last_user_contains", "IMAGE look at this", Text("A single pixel.")));

        [Test]
        public void A_session_streams_asks_is_answered_interrupted_and_no_event_is_missed()
        {
            using (var world = new World(ScriptOfTheSession()))
            using (var main = new ThreadDispatcher())
            {
                var client = new CodivaClient(Transport(world), main);
                var recorded = new List<KeyValuePair<string, object>>();
                client.Received += (method, parameters) => { lock (recorded) recorded.Add(new KeyValuePair<string, object>(method, parameters)); };
                try
                {
                    client.Start();
                    Until(main, () => client.State == ConnectionState.Connected, "the connection");
                    Assert.AreEqual("1", main.Invoke(() => client.Server.ProtocolVersion));
                    Assert.AreEqual("codiva", main.Invoke(() => client.Server.Server.Name));

                    // Create: the answer comes back through the dispatcher.
                    SessionInfo created = null;
                    var answeredOnMain = false;
                    client.CreateSession(new CreateParams { Prompt = "PERM write the marker file" }, r => { created = r.Session; answeredOnMain = main.IsCurrent; });
                    Until(main, () => created != null, "session/create's answer");
                    Assert.IsTrue(answeredOnMain, "callbacks run on the dispatcher's thread");
                    var id = created.Id;
                    client.Watch(id);

                    // The permission: answered with the request's own allow-once option.
                    Until(main, () => client.Store[id]?.Prompts.Any(p => p.Kind == "permission") == true, "the permission request");
                    Until(main, () => client.Store[id].Status == "awaiting_permission", "the awaiting_permission status");
                    var permission = main.Invoke(() => client.Store[id].Prompts.First(p => p.Kind == "permission"));
                    Assert.AreEqual("Bash", permission.Tool);
                    Until(main, () => client.Store.InboxCount == 1, "the inbox to count the permission");
                    var allowOnce = permission.Options.First(o => o.Kind == "allow_once");
                    client.RespondPermission(id, permission.RequestId, allowOnce.Id).Wait();

                    // The question: answered with one of its labels.
                    Until(main, () => client.Store[id]?.Prompts.Any(p => p.Kind == "question") == true, "the question");
                    var question = main.Invoke(() => client.Store[id].Prompts.First(p => p.Kind == "question"));
                    Assert.AreEqual("Which greeting?", question.Questions[0].QuestionValue);
                    Assert.AreEqual(new[] { "こんにちは", "Hello" }, question.Questions[0].Options.Select(o => o.Label).ToArray());
                    client.AnswerQuestion(id, question.RequestId, new Dictionary<string, object> { { "Which greeting?", "こんにちは" } }).Wait();
                    Until(main, () => client.Store[id].Prompts.Count == 0, "the question to close");
                    Until(main, () => client.Store.InboxCount == 0, "the inbox to empty");

                    // The Bash call ran in the session's worktree (the permission was allowed).
                    Assert.AreEqual("marker\n", File.ReadAllText(Path.Combine(created.Worktree, "marker.txt")));

                    // Streaming, then interrupted mid-way.
                    Until(main, () => client.Store[id].Streaming.Contains("streaming on"), "streamed text");
                    client.Interrupt(id).Wait();
                    Until(main, () => client.Store[id].Status == "interrupted", "the interrupted status");
                    Assert.IsFalse(main.Invoke(() => client.Store[id].Streaming).Length >= 3000, "the stream was cut short");

                    // An image: the model receives it as an image block.
                    client.Send(id, "IMAGE look at this", new List<ImageInput> { ImageInput.FromBytes("image/png", Convert.FromBase64String(Png)) }).Wait();
                    Until(main, () => client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == "A single pixel."), "the answer to the image");
                    Until(main, () => client.Store[id].Status == "completed", "the image turn to complete");
                    var imageRequest = world.Mock.WaitForRequest(b => b.Contains("IMAGE look at this"));
                    StringAssert.Contains("\"type\":\"image\"", imageRequest);
                    StringAssert.Contains(Png, imageRequest);

                    // Model, permission mode and approval policy requests reach the agent.
                    client.SetModel(id, "claude-haiku-4-5").Wait();
                    Until(main, () => client.Store[id].Row.Model == "claude-haiku-4-5", "the model change");
                    client.SetPermissionMode(id, "plan").Wait();
                    Until(main, () => client.Store[id].PermissionMode == "plan", "the permission mode change");
                    client.SetApprovalPolicy(id, new ApprovalPolicy { Mode = "ask" }).Wait();

                    // A refusal reaches the failure callback, on the dispatcher, with its reason.
                    RpcException refusal = null;
                    var refusedOnMain = false;
                    client.SetAgent(id, "no-such-agent", e => { refusal = e; refusedOnMain = main.IsCurrent; });
                    Until(main, () => refusal != null, "the refusal of an unknown agent");
                    Assert.IsTrue(refusedOnMain);
                    Assert.AreEqual(-32002, refusal.Code);
                    Assert.AreEqual("unknown_agent", refusal.Reason);

                    // The log, as the panel draws it.
                    var log = main.Invoke(() => client.Store[id].Log.ToList());
                    Assert.AreEqual("PERM write the marker file", log.First(e => e.Kind == "user").Text);
                    var bash = log.First(e => e.Kind == "tool" && e.Name == "Bash");
                    Assert.AreEqual("succeeded", bash.Status);
                    Assert.AreEqual("execute", bash.ToolKind);
                    Assert.IsTrue(log.Any(e => e.Kind == "tool" && e.Name == "AskUserQuestion"));
                    var card = Presentation.CardOf(bash);
                    Assert.AreEqual("succeeded", card.State);
                    StringAssert.StartsWith("Bash", card.Title);
                    StringAssert.Contains("$ printf 'marker\\n' > marker.txt && echo wrote-marker\nwrote-marker", card.Body);

                    // Every event was applied in order: none missed, none out of order.
                    var (applied, last, gaps) = main.Invoke(() => (client.Store.AppliedCount, client.Store.LastSeq, client.Store.Gaps));
                    Assert.AreEqual(0, gaps);
                    Assert.AreEqual(last, applied, "every seq from 1 to the last was applied");
                    Assert.Greater(last, 10);

                    GapIsDetectedAndRepaired(client, main, recorded, id);
                }
                finally
                {
                    client.Dispose();
                }
                Assert.AreEqual("", world.Mock.Log.ToString().Split('\n').Where(l => l.Contains("UNMATCHED")).Aggregate("", (a, b) => a + b), "every model request matched a rule");
            }
        }

        /// The client reconnects after its connection drops. Over stdio a new connection is a new
        /// `codiva serve` (the old one stopped its agents at EOF); over the socket the daemon
        /// stays. Either way: back-off until the server answers, a fresh snapshot, the same
        /// session, and requests that work on the new connection. That a session keeps running
        /// across a reconnect is the daemon's promise: InPlaceAcceptanceTests.
        [Test]
        public void After_a_dropped_connection_the_client_reconnects_and_the_session_goes_on()
        {
            var script = Rules(
                When("last_user_contains", "FIRST say hello", Text("Hello.")),
                When("last_user_contains", "SECOND say goodbye", Text("Goodbye.")));
            using (var world = new World(script))
            using (var main = new ThreadDispatcher())
            {
                var client = new CodivaClient(Transport(world), main, new Backoff { Initial = TimeSpan.FromMilliseconds(100) });
                var states = new List<ConnectionState>();
                client.StateChanged += s => states.Add(s);
                try
                {
                    client.Start();
                    Until(main, () => client.State == ConnectionState.Connected, "the connection");
                    var id = client.CreateSession(new CreateParams { Prompt = "FIRST say hello" }).Result.Session.Id;
                    client.Watch(id);
                    Until(main, () => client.Store[id]?.Status == "completed", "the first turn");

                    client.DropConnection();
                    Until(main, () => client.Connections == 2 && client.State == ConnectionState.Connected, "the reconnection");
                    CollectionAssert.Contains(main.Invoke(() => states.ToList()), ConnectionState.Reconnecting);
                    Assert.AreEqual(id, main.Invoke(() => client.Store.Order.Single()));
                    Until(main, () => client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == "Hello."), "the log, read again");

                    client.Send(id, "SECOND say goodbye").Wait();
                    Until(main, () => client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == "Goodbye."), "the second turn");
                    Until(main, () => client.Store[id].Status == "completed", "the second turn to complete");
                    Assert.AreEqual(0, main.Invoke(() => client.Store.Gaps));
                }
                finally
                {
                    client.Dispose();
                }
            }
        }

        /// The recorded stream replayed into a fresh store with one event missing: the store
        /// reports the gap at the next event and a `manager/snapshot` repairs it.
        static void GapIsDetectedAndRepaired(CodivaClient client, ThreadDispatcher main, List<KeyValuePair<string, object>> recorded, string id)
        {
            List<Sequenced> events;
            lock (recorded) events = recorded.Select(r => Notifications.Read(r.Key, r.Value)).Where(e => e.SeqOrZero > 0).ToList();
            var missing = events.Count / 2;
            var store = new SessionStore();
            store.Reset(new ManagerSnapshot { Seq = 0, Sessions = new List<SessionInfo>() });
            Applied outcome = Applied.Applied;
            var at = -1;
            for (var i = 0; i < events.Count; i++)
            {
                if (i == missing) continue;
                outcome = store.Apply(events[i]);
                if (outcome == Applied.Gap) { at = i; break; }
            }
            Assert.AreEqual(Applied.Gap, outcome);
            List<string> around;
            lock (recorded) around = recorded.Where(r => (JsonRead.Long(r.Value, "seq") ?? 0) > 0).Skip(Math.Max(0, at - 3)).Take(5)
                .Select(r => JsonRead.Long(r.Value, "seq") + " " + r.Key).ToList();
            Assert.AreEqual(missing + 1, at, "the gap is found at the first event after the missing one (" + missing + " left out; from " +
                Math.Max(0, at - 3) + ": " + string.Join(", ", around) + ")");
            Assert.AreEqual(events[missing].SeqOrZero - 1, store.LastSeq);

            var snapshot = client.Request(Methods.ManagerSnapshot, new NoParams()).Result;
            store.Reset(snapshot);
            foreach (var ev in events.Skip(at)) store.Apply(ev);
            Assert.AreEqual(main.Invoke(() => client.Store[id].Row.Status), store[id].Row.Status);
            Assert.AreEqual(main.Invoke(() => client.Store.LastSeq), Math.Max(store.LastSeq, snapshot.Seq));
        }
    }
}
