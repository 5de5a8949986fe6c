// Markers end to end: a panel session in codiva's daemon, the real `claude` placing a box with
// marker_add (its schema taken by Claude Code, its numbers read) and reading it back with the
// user's pin through marker_list — both let through by the auto-approve level "Unity tools that
// change nothing" (markers are overlays), so no card is asked.
using System;
using System.IO;
using System.Linq;
using Codiva.Client;
using Codiva.Ops;
using Codiva.Protocol;
using Codiva.Rpc;
using NUnit.Framework;
using static Codiva.Tests.Script;
using static Codiva.Tests.Waits;

namespace Codiva.Tests
{
    [TestFixture]
    public class MarkersThroughCodivaTests
    {
        [Test]
        public void The_agent_places_a_marker_and_reads_it_back_with_the_users_pin()
        {
            var script = Rules(
                When("last_user_contains", "HELLO", Text("Ready.")),
                When("last_user_contains", "MARK the door", ToolUse(OpsTool("marker_add"), Obj("kind", "box", "at", List(0L, 1.5, 0L), "size", List(1L, 3L, 0.25), "label", "the door"))),
                When("last_user_contains", "placed M1", ToolUse(OpsTool("marker_list"), Obj())),
                When("last_user_contains", "P1 pin", Text("I see the door and your pin.")));
            using (var world = new World(script))
            using (var unity = new ThreadDispatcher("unity-main"))
            using (var main = new ThreadDispatcher())
            {
                var ledger = new MarkerLedger(Path.Combine(world.Tmp, "Library", "Codiva", "markers.json"));
                ledger.Pin(new Point3(2, 0, -1), "here");
                var registry = new ToolRegistry();
                Markers.Register(registry, ledger);
                registry.Enable("markers");
                using (var server = new McpServer(registry, new ToolRunner(unity)))
                {
                    server.Start();
                    var client = new CodivaClient(new DaemonSocketTransportFactory(world.Program()), main);
                    try
                    {
                        client.Start();
                        Until(main, () => client.State == ConnectionState.Connected, "the connection");
                        var id = client.CreateSession(PanelSession.Create("HELLO", world.Repo, server)).Result.Session.Id;
                        client.Watch(id);
                        Until(main, () => client.Store[id]?.Status == "completed", "the first turn");
                        client.Request(Methods.SessionSetApprovalPolicy, AutoApprove.Choose(id, AutoApproveLevel.UnityToolsThatChangeNothing, registry)).Wait();
                        client.Send(id, "MARK the door").Wait();
                        Until(main, () => client.Store[id].Status == "completed" && client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text.StartsWith("I see")) || client.Store[id].Prompts.Count > 0, "the turn's end");
                        Assert.AreEqual(0, main.Invoke(() => client.Store[id].Prompts.Count), "no card: the level lets the marker tools through");

                        Assert.AreEqual(new[] { "P1 pin at (2, 0, -1): here", "M1 box at (0, 1.5, 0) size (1, 3, 0.25): the door" }, ledger.All().Select(m => m.Line()).ToArray());
                        var last = world.Mock.WaitForRequest(b => b.Contains("P1 pin"));
                        StringAssert.Contains("M1 box at (0, 1.5, 0) size (1, 3, 0.25): the door", last);
                        StringAssert.Contains("P1 pin at (2, 0, -1): here", last);
                    }
                    finally
                    {
                        client.Dispose();
                    }
                }
                Assert.IsNull(unity.Failure);
            }
        }
    }
}
