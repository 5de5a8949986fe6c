// The images an Ops tool returns, next to the card of the call that returned them: a panel
// session in codiva's daemon, the real `claude` calling an Ops tool that answers with a PNG; the
// server hands the result to ToolImageCache with the call's tool-use id from the request's
// `_meta["claudecode/toolUseId"]` (this test is the measurement that Claude Code sends it, and
// that it is the id codiva's log entry of the call has).
using System;
using System.Collections.Generic;
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
    public class OpsImagesThroughCodivaTests
    {
        /// A 1×1 PNG.
        const string Pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

        sealed class SnapTool : ITool, IChangesNothing
        {
            public string Name => "snap";
            public string Module => "test";
            public string Description => "Returns a picture of the scene.";
            public Dictionary<string, object> InputSchema => Args.Schema();
            public ThreadAffinity Affinity => ThreadAffinity.Any;
            public bool Destructive => false;
            public ToolResult Call(Dictionary<string, object> arguments) =>
                ToolResult.Text("here is the snapshot").AddImage("image/png", Convert.FromBase64String(Pixel));
        }

        [Test]
        public void An_Ops_tools_image_is_kept_under_the_tool_use_id_of_codivas_log_entry()
        {
            var script = Rules(
                When("last_user_contains", "SNAP the scene", ToolUse(OpsTool("snap"), Obj())),
                When("last_user_contains", "here is the snapshot", Text("A single pixel.")));
            using (var world = new World(script))
            using (var unity = new ThreadDispatcher("unity-main"))
            using (var main = new ThreadDispatcher())
            {
                var cache = new ToolImageCache(Path.Combine(world.Tmp, "Library", "Codiva", "ToolImages"));
                var runner = new ToolRunner(unity);
                var registry = new ToolRegistry();
                registry.Add(new SnapTool());
                registry.Enable("test");
                var ids = new List<string>();
                using (var server = new McpServer(registry, runner))
                {
                    server.Called += (toolUseId, result) => { lock (ids) ids.Add(toolUseId); cache.Keep(toolUseId, result); };
                    server.Start();
                    var client = new CodivaClient(new DaemonSocketTransportFactory(world.Program()), main);
                    try
                    {
                        client.Start();
                        Until(main, () => client.State == ConnectionState.Connected, "the connection");
                        var id = client.CreateSession(PanelSession.Create("SNAP the scene", world.Repo, server)).Result.Session.Id;
                        client.Watch(id);
                        Until(main, () => client.Store[id]?.Prompts.Any(p => p.Kind == "permission") == true, "the permission of the call");
                        var permission = main.Invoke(() => client.Store[id].Prompts.First(p => p.Kind == "permission"));
                        client.RespondPermission(id, permission.RequestId, permission.Options.First(o => o.Kind == "allow_once").Id).Wait();
                        Until(main, () => client.Store[id].Status == "completed", "the turn's end");

                        var call = main.Invoke(() => client.Store[id].Log.Single(e => e.Kind == "tool" && e.Name == OpsTool("snap")));
                        StringAssert.StartsWith("toolu_", call.ToolUseId);
                        lock (ids) Assert.AreEqual(new[] { call.ToolUseId }, ids.ToArray(), "Claude Code named the call by codiva's tool-use id");
                        var image = cache.Of(call.ToolUseId).Single();
                        Assert.AreEqual("image/png", image.MediaType);
                        Assert.AreEqual(1, image.Width);
                        Assert.AreEqual(1, image.ThumbWidth);
                        CollectionAssert.AreEqual(Convert.FromBase64String(Pixel), File.ReadAllBytes(image.Path));
                        Assert.IsNull(cache.Problem);
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
