// Where a `session/snapshot` stands among the session's events (docs/serve-api.md, "Which events
// a snapshot holds"): its `seq`. A store that asks for one while the session runs gets the
// session's notifications before, among and after the answer; whatever the place the answer is
// read at, its view must then be the fold of every event, as a store that watched from the start
// has it — streamed text exactly once, a prompt opened after the snapshot kept, one it saw
// closed never shown again. A snapshot without `seq` (an older server) gets the kept events
// again, but `stream` deltas.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Json;
using Codiva.Protocol;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class SnapshotPlacementTests
    {
        const string Id = "s";

        /// One notification as the daemon sends it: `method` with the event's fields.
        sealed class Note
        {
            public string Method, Kind, Fields;
            public Sequenced Read(long seq) => Notifications.Read(Method, JsonText.Parse(
                "{\"seq\":" + seq + ",\"session_id\":\"" + Id + "\",\"event\":\"" + Kind + "\"" + (Fields == "" ? "" : "," + Fields) + "}"));
        }

        static Note Ev(string method, string kind, string fields = "") => new Note { Method = method, Kind = kind, Fields = fields };
        static Note Status(string status) => Ev("session/status", "status", "\"status\":\"" + status + "\"");
        static Note Stream(string text, bool reset = false) =>
            Ev("session/stream", "stream", "\"text\":" + JsonText.Write(text) + ",\"reset\":" + (reset ? "true" : "false"));
        static Note Opened(string requestId) =>
            Ev("session/permission", "prompt_opened", "\"prompt\":{\"kind\":\"permission\",\"request_id\":\"" + requestId + "\",\"tool\":\"Bash\",\"input\":{},\"suggestions\":[]}");
        static Note Closed(string requestId) =>
            Ev("session/promptClosed", "prompt_closed", "\"request_id\":\"" + requestId + "\",\"resolution\":\"allowed\"");
        static Note Entry(long id, string kind, string text) =>
            Ev("session/log", "log", "\"scope\":\"main\",\"update\":false,\"entry\":{\"id\":" + id + ",\"at_ms\":0,\"kind\":\"" + kind + "\",\"text\":" + JsonText.Write(text) + "}");
        static Note Usage(long tokens) =>
            Ev("session/usage", "usage", "\"usage\":{\"tokens\":{\"input\":" + tokens + "},\"context_used\":" + tokens + "}");

        /// The session's events; `events[i]` has seq i + 1.
        static List<Note> Session(params Note[] events) => events.ToList();

        static SessionStore Fresh(long managerSeq)
        {
            var store = new SessionStore();
            store.Reset(new ManagerSnapshot { Seq = managerSeq, Sessions = new List<SessionInfo>() });
            return store;
        }

        static void Apply(SessionStore store, List<Note> events, long seq) =>
            Assert.AreEqual(Applied.Applied, store.Apply(events[(int)seq - 1].Read(seq)), "event " + seq);

        /// What a store that watched from the start has after the events up to `upTo`.
        static SessionStore Watched(List<Note> events, long upTo)
        {
            var store = Fresh(0);
            for (var seq = 1L; seq <= upTo; seq++) Apply(store, events, seq);
            return store;
        }

        /// The daemon's `session/snapshot` answer taken after the events up to `takenAt` (the
        /// fold, which is what the daemon answers), as the client reads it: saying its place
        /// (`seq`), or not (`placed` false: a server before the field).
        static SessionSnapshot Answer(List<Note> events, long takenAt, bool placed)
        {
            var json = (Dictionary<string, object>)Wire.ToJson(Watched(events, takenAt)[Id].ToSnapshot());
            if (placed) json["seq"] = takenAt;
            return Wire.FromJson<SessionSnapshot>(JsonText.Parse(JsonText.Write(json)));
        }

        static string Shown(SessionView view) => JsonText.Write(Wire.ToJson(view.ToSnapshot()));

        /// A store attached with the manager's rows at `managerSeq` asks for the session's
        /// snapshot; the events from `managerSeq` + 1 on arrive, and the answer (`answer`) is
        /// read after `readAfter` of them. `check` sees the view after every event read after
        /// the answer.
        static SessionStore Attach(List<Note> events, long managerSeq, SessionSnapshot answer, int readAfter, Action<SessionView, long> check = null)
        {
            var store = Fresh(managerSeq);
            var request = store.BeginLoad(Id);
            var seq = managerSeq + 1;
            for (var i = 0; i < readAfter; i++, seq++) Apply(store, events, seq);
            request.Load(answer);
            check?.Invoke(store[Id], managerSeq + readAfter);
            for (; seq <= events.Count; seq++)
            {
                Apply(store, events, seq);
                check?.Invoke(store[Id], seq);
            }
            return store;
        }

        static readonly List<Note> Streaming = Session(
            Status("running"),                  // 1
            Entry(1, "user", "say hello"),      // 2
            Stream("Hel", reset: true),         // 3
            Usage(10),                          // 4
            Stream("lo"),                       // 5
            Ev("session/permissionMode", "permission_mode", "\"mode\":\"plan\""), // 6
            Stream(","),                        // 7
            Usage(20),                          // 8
            Stream(" "),                        // 9
            Ev("session/model", "model", "\"model\":\"opus\""), // 10
            Stream("wor"),                      // 11
            Stream("ld"),                       // 12
            Stream("!"));                       // 13

        [Test]
        public void Events_before_among_and_after_a_snapshot_at_12_fold_to_the_watched_view_streamed_text_once()
        {
            var watched = Shown(Watched(Streaming, 13)[Id]);
            StringAssert.Contains("\"streaming\":\"Hello, world!\"", watched);
            // 11, 12 and 13 arrive between the request and the answer (the case the placement is
            // for), and every other place the answer can be read at (11 and 12 read after the
            // answer are in it already).
            for (var readAfter = 3; readAfter >= 0; readAfter--)
            {
                var store = Attach(Streaming, 10, Answer(Streaming, 12, placed: true), readAfter);
                Assert.AreEqual("Hello, world!", store[Id].Streaming, "the answer read after " + readAfter + " of the events 11 to 13");
                Assert.AreEqual(watched, Shown(store[Id]), "the answer read after " + readAfter + " of the events 11 to 13");
                Assert.AreEqual(12, store[Id].LoadedAt);
            }
        }

        static readonly List<Note> Prompts = Session(
            Status("running"),                  // 1
            Entry(1, "user", "run it"),         // 2
            Usage(5),                           // 3
            Status("running"),                  // 4
            Stream("Let me run it.", reset: true), // 5
            Entry(2, "assistant", "Let me run it."), // 6
            Usage(8),                           // 7
            Ev("session/permissionMode", "permission_mode", "\"mode\":\"default\""), // 8
            Opened("A"),                        // 9
            Status("waiting"),                  // 10
            Closed("A"),                        // 11
            Status("running"),                  // 12
            Opened("B"));                       // 13

        [Test]
        public void A_prompt_opened_after_a_snapshot_at_12_stays_and_one_closed_before_it_never_shows_again()
        {
            var watched = Watched(Prompts, 13)[Id];
            CollectionAssert.AreEqual(new[] { "B" }, watched.Prompts.Select(p => p.RequestId).ToArray());
            // The store's rows are at 8: it has seen none of the prompts. The answer, at 12 (A
            // opened and closed, B not yet), is read before, among or after 9 to 13.
            for (var readAfter = 5; readAfter >= 0; readAfter--)
            {
                var where = "the answer read after " + readAfter + " of the events 9 to 13";
                var store = Attach(Prompts, 8, Answer(Prompts, 12, placed: true), readAfter, (view, seq) =>
                {
                    Assert.IsNull(view.FindPrompt("A"), where + ": A, closed at 11, shows again after event " + seq);
                    Assert.AreEqual(seq >= 13, view.FindPrompt("B") != null, where + ": B after event " + seq);
                });
                CollectionAssert.AreEqual(new[] { "B" }, store[Id].Prompts.Select(p => p.RequestId).ToArray(), where);
                Assert.AreEqual(Shown(watched), Shown(store[Id]), where);
            }
        }

        [Test]
        public void A_snapshot_without_seq_gets_the_kept_prompt_again_but_not_the_kept_stream()
        {
            var events = Session(
                Status("running"),              // 1
                Stream("Hello, wor", reset: true), // 2
                Stream("ld"),                   // 3
                Opened("B"));                   // 4
            var watched = Shown(Watched(events, 4)[Id]);
            // An older server's answer, taken after 3 or after 4 (it does not say): 3 and 4 came
            // while it was asked for.
            foreach (var takenAt in new long[] { 3, 4 })
            {
                var answer = Answer(events, takenAt, placed: false);
                Assert.IsNull(answer.Seq);
                var store = Attach(events, 2, answer, 2);
                Assert.AreEqual("Hello, world", store[Id].Streaming, "taken after " + takenAt + ": the kept delta is not applied again");
                CollectionAssert.AreEqual(new[] { "B" }, store[Id].Prompts.Select(p => p.RequestId).ToArray(), "taken after " + takenAt);
                Assert.AreEqual(watched, Shown(store[Id]), "taken after " + takenAt);
                Assert.IsNull(store[Id].LoadedAt);
            }
        }

        [Test]
        public void A_new_stream_forgets_the_places_and_the_kept_events_of_the_old_one()
        {
            // On the old connection: loaded at 12, and a second snapshot asked for while 13 came.
            var store = Fresh(10);
            var old = store.BeginLoad(Id);
            for (var seq = 11L; seq <= 12; seq++) Apply(store, Streaming, seq);
            old.Load(Answer(Streaming, 12, placed: true));
            var lost = store.BeginLoad(Id);
            Apply(store, Streaming, 13);

            // A new daemon: its stream starts again, at 2, with the same session.
            var events = Session(Status("running"), Stream("Hi", reset: true), Stream(" there"), Stream("!"));
            store.NewStream();
            store.Reset(new ManagerSnapshot { Seq = 2, Sessions = new List<SessionInfo> { new SessionInfo { Id = Id } } });
            Apply(store, events, 3);
            StringAssert.EndsWith(" there", store[Id].Streaming, "3 is not taken as held by the old stream's snapshot at 12");
            var request = store.BeginLoad(Id);
            Apply(store, events, 4);
            lost.Fail();
            request.Load(Answer(events, 3, placed: true));
            Assert.AreEqual("Hi there!", store[Id].Streaming, "nothing kept of the old stream goes over the new snapshot");
            Assert.AreEqual(Shown(Watched(events, 4)[Id]), Shown(store[Id]));
        }

        [Test]
        public void A_request_is_answered_once_and_a_removed_session_is_not_brought_back_by_its_answer()
        {
            var store = Fresh(0);
            var request = store.BeginLoad(Id);
            Apply(store, Prompts, 1);
            request.Load(Answer(Prompts, 1, placed: true));
            Assert.Throws<InvalidOperationException>(() => request.Load(Answer(Prompts, 1, placed: true)));
            Assert.Throws<InvalidOperationException>(request.Fail);

            var late = store.BeginLoad(Id);
            Assert.AreEqual(Applied.Applied, store.Apply(Notifications.Read("session/removed", JsonText.Parse("{\"seq\":2,\"session_id\":\"" + Id + "\"}"))));
            Assert.IsNull(store[Id]);
            late.Load(Answer(Prompts, 1, placed: true));
            Assert.IsNull(store[Id], "the answer of a session removed since it was asked for");
            CollectionAssert.IsEmpty(store.Order);
        }
    }
}
