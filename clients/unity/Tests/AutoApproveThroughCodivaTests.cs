// Auto-approve levels end to end: a panel session in codiva's daemon, the real `claude` calling
// the Ops server's tools. At "Unity tools that change nothing" a query runs without a permission
// card and the conversation says it was allowed without asking; a tool that Undo reverts is
// still asked; raising the level to "… or that Undo reverts" lets the waiting request through
// (codiva re-evaluates it), shown the same way. The level is codiva's approval policy, set
// through `session/setApprovalPolicy`.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Ops;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Rpc;
using NUnit.Framework;
using static Codiva.Tests.Script;
using static Codiva.Tests.Waits;

namespace Codiva.Tests
{
    [TestFixture]
    public class AutoApproveThroughCodivaTests
    {
        sealed class MakeThing : ITool, IRevertedByUndo
        {
            public int Calls;
            public string Name => "make_thing";
            public string Module => "test";
            public string Description => "Creates a thing in the scene (Undo reverts it).";
            public Dictionary<string, object> InputSchema => Args.Schema();
            public ThreadAffinity Affinity => ThreadAffinity.Any;
            public bool Destructive => false;
            public ToolResult Call(Dictionary<string, object> arguments) { Calls++; return ToolResult.Text("made the thing"); }
        }

        [Test]
        public void A_level_lets_exactly_its_tools_through_and_raising_it_lets_the_waiting_request_through()
        {
            var script = Rules(
                When("last_user_contains", "AUTO hello", Text("Ready.")),
                When("last_user_contains", "AUTO go", ToolUse(OpsTool("ping"), Obj())),
                When("last_user_contains", "pong", ToolUse(OpsTool("make_thing"), Obj())),
                When("last_user_contains", "made the thing", Text("Done.")));
            using (var world = new World(script))
            using (var unity = new ThreadDispatcher("unity-main"))
            using (var main = new ThreadDispatcher())
            {
                var runner = new ToolRunner(unity);
                var registry = new ToolRegistry();
                var make = new MakeThing();
                registry.Add(new PingTool());
                registry.Add(make);
                registry.Enable("core");
                registry.Enable("test");
                using (var server = new McpServer(registry, runner))
                {
                    server.Start();
                    var client = new CodivaClient(new DaemonSocketTransportFactory(world.Program()), main);
                    try
                    {
                        client.Start();
                        Until(main, () => client.State == ConnectionState.Connected, "the connection");
                        var id = client.CreateSession(PanelSession.Create("AUTO hello", world.Repo, server)).Result.Session.Id;
                        client.Watch(id);
                        Until(main, () => client.Store[id]?.Status == "completed", "the first turn");

                        client.Request(Methods.SessionSetApprovalPolicy, AutoApprove.Choose(id, AutoApproveLevel.UnityToolsThatChangeNothing, registry)).Wait();
                        client.Send(id, "AUTO go").Wait();
                        Until(main, () => client.Store[id].Prompts.Any(p => p.Kind == "permission"), "a permission card");
                        var asked = main.Invoke(() => client.Store[id].Prompts.Single(p => p.Kind == "permission"));
                        Assert.AreEqual(OpsTool("make_thing"), asked.Tool, "ping went through without a card; make_thing is asked");
                        Assert.AreEqual(0, make.Calls);
                        var shown = main.Invoke(() => Conversation.Build(client.Store[id], Language.En).Select(i => PanelRich.Shown(i.Rich)).ToList());
                        CollectionAssert.Contains(shown, "Allowed without asking: " + OpsTool("ping"));

                        // Raised while make_thing waits: codiva lets it through now.
                        client.Request(Methods.SessionSetApprovalPolicy, AutoApprove.Choose(id, AutoApproveLevel.UnityToolsUndoReverts, registry)).Wait();
                        Until(main, () => client.Store[id].Status == "completed" && client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == "Done."), "the turn's end");
                        Assert.AreEqual(1, make.Calls);
                        Assert.AreEqual(0, main.Invoke(() => client.Store[id].Prompts.Count));
                        var notes = main.Invoke(() => Conversation.Build(client.Store[id], Language.En).Where(i => i.Kind == ItemKind.Note).Select(i => PanelRich.Shown(i.Rich)).ToList());
                        CollectionAssert.IsSubsetOf(new[] { "Allowed without asking: " + OpsTool("ping"), "Allowed without asking: " + OpsTool("make_thing") }, notes);
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
