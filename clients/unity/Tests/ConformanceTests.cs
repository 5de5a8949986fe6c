// The store against docs/conformance/session: every captured session there starts from its
// `initial` view (taken as a `session/snapshot`), gets its events as the daemon sends them (the
// notification's params read as the client reads them, applied through SessionStore.Apply),
// and after every step the store's whole view must equal the expected one, compared as JSON
// values. The fold is codiva_protocol::view's; docs/serve-api.md states its rules.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using Codiva.Client;
using Codiva.Json;
using Codiva.Protocol;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class ConformanceTests
    {
        static string Corpus => Path.Combine(Paths.Root, "docs/conformance/session");
        const string Id = "conformance";

        [Test]
        public void Every_captured_session_folds_to_the_expected_view_after_every_step()
        {
            Assert.IsTrue(Directory.Exists(Corpus), Corpus + " is missing");
            var files = Directory.GetFiles(Corpus).OrderBy(f => f, StringComparer.Ordinal).ToList();
            Assert.IsNotEmpty(files, "no captured session in " + Corpus);
            var failures = new List<string>();
            var steps = 0;
            foreach (var file in files)
            {
                var failure = Check(file, ref steps);
                if (failure != null) failures.Add(Path.GetFileName(file) + ", " + failure);
            }
            Assert.IsEmpty(failures, failures.Count + " of " + files.Count + " sessions differ:\n" + string.Join("\n", failures));
            Console.WriteLine("conformance: " + files.Count + " sessions, " + steps + " steps, every view equal");
        }

        /// The first difference in one captured session (null when there is none).
        static string Check(string file, ref int checkedSteps)
        {
            var document = JsonRead.Obj(JsonText.Parse(File.ReadAllText(file)));
            if (document == null) return "not a JSON object";
            var initial = JsonRead.Obj(JsonRead.Get(document, "initial"));
            var steps = JsonRead.Arr(document, "steps");
            if (initial == null || steps == null) return "no `initial` or no `steps`";

            var store = new SessionStore();
            store.Reset(new ManagerSnapshot { Seq = 0, Sessions = new List<SessionInfo>() });
            store.Load(Id, Wire.FromJson<SessionSnapshot>(initial));
            var expected = new Dictionary<string, object>(initial);
            var difference = Difference(expected, Wire.ToJson(store[Id].ToSnapshot()), null);
            if (difference != null) return "initial view: " + difference;

            for (var i = 0; i < steps.Count; i++)
            {
                var step = JsonRead.Obj(steps[i]);
                var ev = JsonRead.Obj(JsonRead.Get(step, "event"));
                var change = JsonRead.Obj(JsonRead.Get(step, "view"));
                var kind = JsonRead.Str(ev, "event");
                var where = "step " + i + " (event `" + kind + "`): ";
                if (ev == null || change == null || kind == null) return where + "a step needs `event` (with its `event` kind) and `view`";

                var method = MethodOf(kind, ev);
                if (method == null) return where + "a session event of a kind this test does not know";
                var parameters = new Dictionary<string, object>(ev) { ["seq"] = (long)(i + 1), ["session_id"] = Id };
                var notification = Notifications.Read(method, parameters);
                if (notification is SessionEventParams read && read.Event != kind)
                    return where + method + " was read as " + notification.GetType().Name + ", not as the `" + kind + "` event";
                var applied = store.Apply(notification);
                if (applied != Applied.Applied) return where + "not applied (" + applied + ")";

                foreach (var field in change) expected[field.Key] = field.Value;
                difference = Difference(expected, Wire.ToJson(store[Id].ToSnapshot()), null);
                if (difference != null) return where + difference;
                checkedSteps++;
            }
            return null;
        }

        /// The notification that carries a session event of `kind` (as codiva's server sends it):
        /// a prompt by its kind; a session's warning becomes the manager's `warning`.
        static string MethodOf(string kind, Dictionary<string, object> ev)
        {
            switch (kind)
            {
                case "status": return "session/status";
                case "log": return "session/log";
                case "stream": return "session/stream";
                case "prompt_opened":
                    return JsonRead.Str(JsonRead.Get(ev, "prompt"), "kind") == "question" ? "session/question" : "session/permission";
                case "prompt_closed": return "session/promptClosed";
                case "connected": return "session/connected";
                case "agent_session": return "session/agentSession";
                case "model": return "session/model";
                case "permission_mode": return "session/permissionMode";
                case "todos": return "session/todos";
                case "usage": return "session/usage";
                case "subagent": return "session/subagent";
                case "agent_exited": return "session/agentExited";
                case "agent_switched": return "session/agentSwitched";
                case "mcp_servers": return "session/mcpServers";
                case "plan_usage": return "session/planUsage";
                case "warning": return "warning";
                default: return null;
            }
        }

        /// Where two JSON values differ, or null: objects member by member (an absent member
        /// and a null one alike), arrays item by item, numbers by value.
        static string Difference(object expected, object actual, string path)
        {
            if (expected == null && actual == null) return null;
            var expectedObject = expected as Dictionary<string, object>;
            var actualObject = actual as Dictionary<string, object>;
            if (expectedObject != null && actualObject != null)
            {
                foreach (var key in expectedObject.Keys.Union(actualObject.Keys))
                {
                    object e, a;
                    expectedObject.TryGetValue(key, out e);
                    actualObject.TryGetValue(key, out a);
                    var difference = Difference(e, a, path == null ? "`" + key + "`" : path + "." + key);
                    if (difference != null) return difference;
                }
                return null;
            }
            var expectedList = expected as List<object>;
            var actualList = actual as List<object>;
            if (expectedList != null && actualList != null)
            {
                for (var i = 0; i < Math.Min(expectedList.Count, actualList.Count); i++)
                {
                    var difference = Difference(expectedList[i], actualList[i], path + "[" + i + "]");
                    if (difference != null) return difference;
                }
                if (expectedList.Count == actualList.Count) return null;
                return path + ": expected " + expectedList.Count + " items, got " + actualList.Count + Shown(expected, actual);
            }
            if (IsNumber(expected) && IsNumber(actual))
            {
                var same = expected is long x && actual is long y
                    ? x == y
                    : Convert.ToDouble(expected, CultureInfo.InvariantCulture) == Convert.ToDouble(actual, CultureInfo.InvariantCulture);
                return same ? null : path + ":" + Shown(expected, actual);
            }
            if (expected != null && expected.Equals(actual)) return null;
            return path + ":" + Shown(expected, actual);
        }

        static bool IsNumber(object value) => value is long || value is double;

        static string Shown(object expected, object actual) =>
            "\n    expected " + Clip(JsonText.Write(expected)) + "\n    got      " + Clip(JsonText.Write(actual));

        static string Clip(string json) => json.Length <= 400 ? json : json.Substring(0, 400) + "… (" + json.Length + " characters)";
    }
}
