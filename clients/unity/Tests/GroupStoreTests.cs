// Groups of attempts in the store: `manager/snapshot`'s `groups`, then `group/updated` and
// `group/removed` as the daemon writes them (docs/serve-api.md), each counted in the stream.
using System.Collections.Generic;
using Codiva.Client;
using Codiva.Json;
using Codiva.Protocol;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class GroupStoreTests
    {
        static string Group(string id, string kept = null) =>
            "{\"id\":\"" + id + "\",\"instruction\":\"fix it\",\"created_at\":1,\"attempts\":[" +
            "{\"session_id\":\"a1\",\"agent\":\"claude\"},{\"session_id\":\"a2\",\"agent\":\"codex\",\"model\":\"o3\"}]" +
            (kept == null ? "" : ",\"kept\":\"" + kept + "\"") + "}";

        static Applied Apply(SessionStore store, string method, string json) => store.Apply(Notifications.Read(method, JsonText.Parse(json)));

        [Test]
        public void Groups_come_with_the_snapshot_and_follow_group_updated_and_group_removed()
        {
            var store = new SessionStore();
            var changes = 0;
            store.Changed += _ => changes++;
            store.Reset(Wire.FromJson<ManagerSnapshot>(JsonText.Parse("{\"seq\":4,\"sessions\":[],\"groups\":[" + Group("g1") + "]}")));
            Assert.AreEqual(new[] { "g1" }, new List<string>(store.Groups.Keys).ToArray());
            Assert.AreEqual("o3", store.Groups["g1"].Attempts[1].Model);

            Assert.AreEqual(Applied.Applied, Apply(store, "group/updated", "{\"seq\":5,\"change\":\"created\",\"group\":" + Group("g2") + "}"));
            Assert.AreEqual(Applied.Applied, Apply(store, "group/updated", "{\"seq\":6,\"change\":\"kept\",\"group\":" + Group("g1", kept: "a2") + "}"));
            Assert.AreEqual("a2", store.Groups["g1"].Kept);
            Assert.AreEqual(2, store.Groups.Count);
            Assert.AreEqual(Applied.Applied, Apply(store, "group/removed", "{\"seq\":7,\"group_id\":\"g2\"}"));
            Assert.AreEqual(new[] { "g1" }, new List<string>(store.Groups.Keys).ToArray());
            Assert.AreEqual(7, store.LastSeq);
            Assert.AreEqual(4, changes);
            // A gap is not applied (the client resyncs from a new snapshot).
            Assert.AreEqual(Applied.Gap, Apply(store, "group/removed", "{\"seq\":9,\"group_id\":\"g1\"}"));
            Assert.AreEqual(1, store.Groups.Count);

            // A new snapshot is the whole list again.
            store.Reset(Wire.FromJson<ManagerSnapshot>(JsonText.Parse("{\"seq\":9,\"sessions\":[]}")));
            Assert.AreEqual(0, store.Groups.Count);
        }
    }
}
