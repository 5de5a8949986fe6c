// The panel's promise, end to end over the daemon's socket with the real `claude` and the mock
// model server: an in-place session in the "Unity project" (a directory of the repository)
// streams, asks a permission and a question, is interrupted; then the client is disposed while
// the session writes a long slow answer (as a domain reload does), a new client connects and
// finds the same session still running, and the store's `seq` runs on without a hole from the
// new snapshot to the end of the answer; the new client's session snapshot, taken mid-stream,
// says its place, and its streamed text is a beginning of the answer at every change from then
// on and grows to the whole of it (no delta twice, none lost).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Client;
using Codiva.Protocol;
using Codiva.Rpc;
using NUnit.Framework;
using static Codiva.Tests.Script;

namespace Codiva.Tests
{
    [TestFixture]
    public class InPlaceAcceptanceTests
    {
        static readonly TimeSpan Limit = TimeSpan.FromSeconds(120);

        // Long enough, and slow enough (4 characters every 40 ms: about 30 s), to outlive the
        // reconnect; the test waits on states, never on the clock.
        static readonly string SlowAnswer = string.Concat(Enumerable.Range(0, 1500).Select(i => "w" + i % 10));

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
            When("last_user_contains", "SLOW write on", Text(SlowAnswer, 4, 40)));

        static void Until(ThreadDispatcher main, Func<bool> condition, string what)
        {
            Assert.IsTrue(main.WaitUntil(condition, Limit), "timed out waiting for " + what);
            Assert.IsNull(main.Failure, "a callback failed: " + main.Failure);
        }

        /// The slow answer's streamed text in a view, at every change once the session's snapshot
        /// was taken as the view (on the dispatcher's thread).
        sealed class Streamed
        {
            public string Longest = "", Wrong = "";

            public void See(SessionStore store, string id, string changed)
            {
                var view = changed == id ? store[id] : null;
                if (view == null || !view.LogLoaded || view.Streaming.Length == 0) return;
                if (!SlowAnswer.StartsWith(view.Streaming, StringComparison.Ordinal)) { if (Wrong == "") Wrong = view.Streaming; }
                else if (view.Streaming.Length > Longest.Length) Longest = view.Streaming;
            }
        }

        static void Until(ThreadDispatcher main, Func<bool> condition, Func<string> what)
        {
            if (!main.WaitUntil(condition, Limit)) Assert.Fail("timed out waiting for " + main.Invoke(what));
            Assert.IsNull(main.Failure, "a callback failed: " + main.Failure);
        }

        /// What the store knows of a session, for a failure's message.
        static string State(SessionStore store, string id)
        {
            var view = store[id];
            return "view " + view?.Status + ", row " + view?.Row?.Status + ", snapshot at " + view?.LoadedAt +
                ", last seq " + store.LastSeq + ", gaps " + store.Gaps + ", streamed " + view?.Streaming.Length + " characters";
        }

        static CodivaClient Connect(World world, ThreadDispatcher main)
        {
            var client = new CodivaClient(new DaemonSocketTransportFactory(world.Program()), main);
            client.Start();
            Until(main, () => client.State == ConnectionState.Connected, "the connection");
            return client;
        }

        [Test]
        public void An_in_place_session_outlives_its_client_and_the_next_client_misses_no_event()
        {
            using (var world = new World(ScriptOfTheSession()))
            using (var main = new ThreadDispatcher())
            {
                // The "Unity project": a directory of the repository, committed.
                var project = Path.Combine(world.Repo, "Game");
                Directory.CreateDirectory(project);
                File.WriteAllText(Path.Combine(project, "ProjectVersion.txt"), "m_EditorVersion: 2022.3\n");
                Run.Git(world.Repo, "add Game");
                Run.Git(world.Repo, "commit -q -m game");

                var first = Connect(world, main);
                string id;
                long firstLast;
                try
                {
                    SessionInfo created = null;
                    first.CreateSession(new CreateParams { Prompt = "PERM write the marker file", InPlace = project }, r => created = r.Session);
                    Until(main, () => created != null, "session/create's answer");
                    Assert.IsTrue(created.InPlace == true, "the row says in place");
                    Assert.AreEqual(project, created.Worktree, "an in-place session works in the directory itself");
                    id = created.Id;
                    first.Watch(id);

                    // A second session in the same directory is refused, with its reason.
                    RpcException busy = null;
                    first.CreateSession(new CreateParams { Prompt = "another", InPlace = project }, null, e => busy = e);
                    Until(main, () => busy != null, "the refusal of a second in-place session");
                    Assert.AreEqual("in_place_busy", busy.Reason);

                    // The permission, answered with its allow-once option: the command ran in the project.
                    Until(main, () => first.Store[id]?.Prompts.Any(p => p.Kind == "permission") == true, "the permission request");
                    var permission = main.Invoke(() => first.Store[id].Prompts.First(p => p.Kind == "permission"));
                    Assert.AreEqual("Bash", permission.Tool);
                    first.RespondPermission(id, permission.RequestId, permission.Options.First(o => o.Kind == "allow_once").Id).Wait();

                    // The question, answered with a label.
                    Until(main, () => first.Store[id]?.Prompts.Any(p => p.Kind == "question") == true, "the question");
                    var question = main.Invoke(() => first.Store[id].Prompts.First(p => p.Kind == "question"));
                    first.AnswerQuestion(id, question.RequestId, new Dictionary<string, object> { { "Which greeting?", "こんにちは" } }).Wait();
                    Until(main, () => first.Store[id].Prompts.Count == 0, "the question to close");
                    Assert.AreEqual("marker\n", File.ReadAllText(Path.Combine(project, "marker.txt")));

                    // Streaming, interrupted mid-way.
                    Until(main, () => first.Store[id].Streaming.Contains("streaming on"), "streamed text");
                    first.Interrupt(id).Wait();
                    Until(main, () => first.Store[id].Status == "interrupted", "the interrupted status");

                    // A long slow answer starts; the client goes away in the middle of it.
                    first.Send(id, "SLOW write on").Wait();
                    Until(main, () => first.Store[id].Status == "running" && first.Store[id].Streaming.Contains("w0w1"), "the slow answer to stream");
                    var (applied, last, gaps) = main.Invoke(() => (first.Store.AppliedCount, first.Store.LastSeq, first.Store.Gaps));
                    Assert.AreEqual(0, gaps);
                    Assert.AreEqual(last - main.Invoke(() => first.Store.SnapshotSeq), applied, "the first client applied every event after its snapshot");
                    firstLast = last;
                }
                finally
                {
                    // What a domain reload does: the client and its connection are gone.
                    first.Dispose();
                }

                var second = Connect(world, main);
                var streamed = new Streamed();
                try
                {
                    // The same daemon: its `seq` went on, it did not start again.
                    var snapshotSeq = main.Invoke(() => second.Store.SnapshotSeq);
                    Assert.GreaterOrEqual(snapshotSeq, firstLast, "the daemon's seq continues across the reconnect");
                    Assert.AreEqual(id, main.Invoke(() => second.Store.Order.Single()));
                    Assert.IsTrue(main.Invoke(() => second.Store[id].Row.InPlace == true));
                    second.Store.Changed += changed => streamed.See(second.Store, id, changed);
                    second.Store.StreamChanged += changed => streamed.See(second.Store, id, changed);
                    second.Watch(id);

                    // Still running when the new client sees it, and it finishes with the whole answer.
                    Until(main, () => second.Store[id].LogLoaded, "the session's log");
                    var placed = main.Invoke(() => second.Store[id].LoadedAt);
                    Assert.IsNotNull(placed, "the daemon's session/snapshot says its place in the stream");
                    Assert.GreaterOrEqual(placed.Value, snapshotSeq);
                    Assert.AreEqual("running", main.Invoke(() => second.Store[id].Status), "the session kept running without a client");
                    Assert.IsFalse(main.Invoke(() => second.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == SlowAnswer)), "the answer was not finished yet");
                    Until(main, () => second.Store[id].Status == "completed", () => "the slow answer to complete (" + State(second.Store, id) + ")");
                    Until(main, () => second.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == SlowAnswer), "the whole answer in the log");
                    // Attached mid-stream, the deltas around the snapshot's place were each shown
                    // once: from the snapshot on, the streamed text was always a beginning of the
                    // answer, and it grew to the whole of it.
                    Assert.AreEqual("", main.Invoke(() => streamed.Wrong), "the streamed text, each delta once");
                    Assert.AreEqual(SlowAnswer, main.Invoke(() => streamed.Longest), "the streamed text grew to the whole answer");

                    // No missed event: every seq after the snapshot was applied, in order, no gap.
                    var (applied, last, gaps, snapshotAfter) = main.Invoke(() => (second.Store.AppliedCount, second.Store.LastSeq, second.Store.Gaps, second.Store.SnapshotSeq));
                    Assert.AreEqual(0, gaps);
                    Assert.AreEqual(snapshotSeq, snapshotAfter, "no resync was needed");
                    Assert.AreEqual(last - snapshotSeq, applied, "every seq from the snapshot's + 1 to the last was applied");
                    Assert.Greater(applied, 0, "events arrived after the reconnect");
                }
                finally
                {
                    second.Dispose();
                }
                Assert.AreEqual("", world.Mock.Log.ToString().Split('\n').Where(l => l.Contains("UNMATCHED")).Aggregate("", (a, b) => a + b), "every model request matched a rule");
            }
        }
    }
}
