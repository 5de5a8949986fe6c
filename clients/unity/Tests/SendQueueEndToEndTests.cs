// Sends held while Unity "compiles", against the real daemon and the real `claude` (mock model):
// two messages are queued while compiling, the client goes away (what a domain reload does), a
// new client and a new queue over the same file send them after the compile — in order, each
// once — and the agent answers both.
using System;
using System.IO;
using System.Linq;
using Codiva.Client;
using Codiva.Protocol;
using Codiva.Rpc;
using Codiva.Unity;
using NUnit.Framework;
using static Codiva.Tests.Script;
using static Codiva.Tests.Waits;

namespace Codiva.Tests
{
    [TestFixture]
    public class SendQueueEndToEndTests
    {
        sealed class Compile : ICompileState { public volatile bool Compiling; public bool IsCompiling => Compiling; }

        static CodivaClient Connect(World world, ThreadDispatcher main)
        {
            var client = new CodivaClient(new DaemonSocketTransportFactory(world.Program()), main);
            client.Start();
            Until(main, () => client.State == ConnectionState.Connected, "the connection");
            return client;
        }

        [Test]
        public void Messages_queued_while_compiling_outlive_the_reload_and_reach_the_agent_in_order_once()
        {
            var script = Rules(
                When("last_user_contains", "FIRST hello", Text("hello back")),
                // "two" first: should the agent read both in one turn, it answers that.
                When("last_user_contains", "QUEUED two", Text("reply two")),
                When("last_user_contains", "QUEUED one", Text("reply one")));
            using (var world = new World(script))
            using (var main = new ThreadDispatcher())
            {
                var file = Path.Combine(world.Tmp, "Temp", "Codiva", "queued-sends.json");
                var compile = new Compile();
                string id;
                var first = Connect(world, main);
                try
                {
                    SessionInfo created = null;
                    first.CreateSession(new CreateParams { Prompt = "FIRST hello" }, r => created = r.Session);
                    Until(main, () => created != null, "session/create's answer");
                    id = created.Id;
                    first.Watch(id);
                    Until(main, () => first.Store[id]?.Status == "completed", "the first turn");

                    compile.Compiling = true;
                    var before = main.Invoke(() => new SendQueue(file, new ClientSendChannel(() => first), compile));
                    Assert.AreEqual(SendOutcome.Queued, main.Invoke(() => before.Send(id, "QUEUED one")));
                    Assert.AreEqual(SendOutcome.Queued, main.Invoke(() => before.Send(id, "QUEUED two")));
                    main.Invoke(() => { before.Pump(); return 0; });
                    Assert.AreEqual(2, main.Invoke(() => before.Waiting));
                }
                finally
                {
                    // The compile ends in a domain reload: the client and the queue are gone.
                    first.Dispose();
                }
                var second = Connect(world, main);
                try
                {
                    var after = main.Invoke(() => new SendQueue(file, new ClientSendChannel(() => second), compile));
                    Assert.AreEqual(2, main.Invoke(() => after.Waiting));
                    second.Watch(id);
                    Until(main, () => second.Store[id]?.LogLoaded == true, "the session's log");
                    Assert.AreEqual(new[] { "FIRST hello" }, main.Invoke(() => second.Store[id].Log.Where(e => e.Kind == "user").Select(e => e.Text).ToArray()), "nothing was sent while compiling");
                    compile.Compiling = false;
                    // The Editor pumps on each update; here the wait does.
                    Until(main, () =>
                    {
                        after.Pump();
                        var view = second.Store[id];
                        return after.Waiting == 0 && view.Status == "completed" && view.Log.Any(e => e.Kind == "assistant" && e.Text == "reply two");
                    }, "both queued messages answered");
                    var said = main.Invoke(() => second.Store[id].Log.Where(e => e.Kind == "user").Select(e => e.Text).ToArray());
                    Assert.AreEqual(new[] { "FIRST hello", "QUEUED one", "QUEUED two" }, said, "each once, in order");
                    Assert.AreEqual(0, main.Invoke(() => after.Returned.Count));
                    Assert.IsNull(main.Invoke(() => after.Problem));
                }
                finally
                {
                    second.Dispose();
                }
            }
        }
    }
}
