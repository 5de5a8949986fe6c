// The panel's models against the real `codiva` (stdio) and the real `claude` (mock model
// server): one turn with four Bash calls — three read-only ones that Claude Code runs without
// asking (`ls`, `cat`, `pwd`) and that fold into one group, and `touch` whose permission card is
// answered with a deny and a typed reason — then a
// reply with `List<int>` and `<color=red>` that the conversation model shows as text. The
// status bar, the slash-command completion and the model picker read what the agent reported; the
// notifier, with the panel unfocused, tells the permission request and the turn's end; an image
// attached within the limits goes with the next message.
using System;
using System.Collections.Generic;
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
    public class PanelTurnEndToEndTests
    {
        const string Reason = "Use the name approved.txt instead";
        const string Reply = "Understood: no `denied.txt`. A `List<int>` stays List<int>, and <color=red>x</color> is **text**.";

        /// A 1×1 PNG.
        const string Pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

        static Dictionary<string, object> Block(string name, Dictionary<string, object> input) =>
            Obj("type", "tool_use", "name", name, "input", input);

        static object Turn() => Rules(
            When("last_user_contains", "RUN the tools", Obj("type", "message", "blocks", List(
                Obj("type", "text", "text", "Looking around."),
                Block("Bash", Obj("command", "ls", "description", "List files")),
                Block("Bash", Obj("command", "cat README.md", "description", "Read the readme")),
                Block("Bash", Obj("command", "pwd", "description", "Where")),
                Block("Bash", Obj("command", "touch denied.txt", "description", "Create the marker"))))),
            When("last_user_contains", Reason, Text(Reply)),
            When("last_user_contains", "IMAGE look at this", Text("A single pixel.")));

        [Test]
        public void A_turn_with_four_tool_calls_and_a_permission_denied_with_a_reason_through_the_panel_models()
        {
            using (var world = new World(Turn()))
            using (var main = new ThreadDispatcher())
            {
                var client = new CodivaClient(new StdioTransportFactory(world.Program()), main);
                var feed = new PanelFeed(client, main);
                // The panel is not focused: what happens is counted and told.
                var notifier = new Notifier();
                notifier.SetFocused(false);
                var notices = new List<Notice>();
                client.Store.Changed += changed => { if (changed != null && client.Store[changed] != null) notices.AddRange(notifier.Observe(changed, client.Store[changed], Language.En)); };
                try
                {
                    client.Start();
                    Until(main, () => client.State == ConnectionState.Connected, "the connection");
                    SessionInfo created = null;
                    client.CreateSession(new CreateParams { Prompt = "RUN the tools" }, r => created = r.Session);
                    Until(main, () => created != null, "session/create's answer");
                    var id = created.Id;
                    client.Watch(id);

                    // The permission card of the Bash call: its options, answered with a deny and a reason.
                    Until(main, () => client.Store[id]?.Prompts.Any(p => p.Kind == "permission") == true, "the permission request");
                    var card = main.Invoke(() => PermissionCard.Of(id, client.Store[id], Language.En));
                    Assert.AreEqual("Bash", card.Tool);
                    Assert.AreEqual("touch denied.txt", card.Line);
                    Assert.AreEqual("Allow Bash?\ntouch denied.txt\nCreate the marker", PanelRich.Shown(card.RichHeading(Language.En)));
                    Assert.AreEqual(0, card.MoreWaiting);
                    Assert.IsNotNull(card.AllowOnce);
                    Assert.IsNotNull(card.Deny);
                    Assert.IsNotEmpty(card.Always, "Claude Code offers allow-always scopes for Bash");
                    var answer = card.Refuse(Reason);
                    Assert.AreEqual(card.Deny.OptionId, answer.Option);
                    new PanelActions(client).Answer(answer).Wait();
                    Until(main, () => client.Store[id].Prompts.Count == 0, "the request to close");

                    // The model reads the reason in the Bash call's result.
                    var request = world.Mock.WaitForRequest(b => b.Contains(Reason));
                    StringAssert.Contains(Reason, request);

                    Until(main, () => client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == Reply), "the reply");
                    Until(main, () => client.Store[id].Status == "completed", "the turn's end");
                    var told = main.Invoke(() => notices.Select(n => n.Kind + ": " + n.Words).ToList());
                    Assert.AreEqual(new[] { "Permission: RUN the tools: wants to use Bash", "TurnEnded: RUN the tools: finished" }, told.ToArray());
                    Assert.AreEqual(2, main.Invoke(() => notifier.Badge));
                    var items = main.Invoke(() => Conversation.Build(client.Store[id], Language.En));
                    var kinds = items.Select(i => i.Kind).ToList();
                    Console.WriteLine(string.Join(", ", kinds));

                    // The three read-only calls ran and fold into one group; the Bash call is its own
                    // card, denied; then the reply, its markup as text.
                    var group = items.Single(i => i.Kind == ItemKind.ToolGroup);
                    Assert.AreEqual(new[] { "Bash", "Bash", "Bash" }, group.Tools.Select(t => t.Title).ToArray());
                    Assert.AreEqual(new[] { "ls", "cat README.md", "pwd" }, group.Tools.Select(t => t.Line).ToArray());
                    StringAssert.Contains("# test repo", group.Tools[1].Output);
                    Assert.IsTrue(group.Tools.All(t => t.State == "succeeded" && t.DurationMs.HasValue), string.Join(", ", group.Tools.Select(t => t.State)));
                    Assert.AreEqual("3 tools  Bash", PanelRich.Shown(group.Rich));
                    Assert.AreEqual("ツール 3 件  Bash", PanelRich.Shown(main.Invoke(() => Conversation.Build(client.Store[id], Language.Ja)).Single(i => i.Kind == ItemKind.ToolGroup).Rich));
                    var bash = items.Single(i => i.Kind == ItemKind.Tool).Tool;
                    Assert.AreEqual("Bash", bash.Title);
                    Assert.AreEqual("touch denied.txt", bash.Line);
                    Assert.AreEqual("denied", bash.State);
                    Assert.Less(kinds.IndexOf(ItemKind.ToolGroup), kinds.IndexOf(ItemKind.Tool));
                    var reply = items.Last(i => i.Kind == ItemKind.Assistant);
                    Assert.AreEqual("Understood: no denied.txt. A List<int> stays List<int>, and <color=red>x</color> is text.", PanelRich.Shown(reply.Rich));
                    StringAssert.Contains("<b>text</b>", reply.Rich);
                    Assert.IsFalse(reply.Rich.Contains("<color=red>"), reply.Rich);
                    Assert.AreEqual(ItemKind.User, items[0].Kind);
                    Assert.AreEqual("RUN the tools", PanelRich.Shown(items[0].Rich));
                    Assert.IsFalse(System.IO.File.Exists(System.IO.Path.Combine(created.Worktree, "denied.txt")), "the denied command did not run");
                    // Opened, the group shows its calls one by one.
                    var open = main.Invoke(() => Conversation.Build(client.Store[id], Language.En, new HashSet<string> { group.Key }));
                    Assert.AreEqual(4, open.Count(i => i.Kind == ItemKind.Tool));

                    // What the agent reported, through the status bar, the slash completion and the model picker.
                    var view = client.Store[id];
                    var bar = main.Invoke(() => StatusBar.Of(view, feed.Plan, DateTimeOffset.UtcNow.ToUnixTimeSeconds(), Language.En));
                    Assert.Greater(bar.Tokens, 0, "the agent reported usage");
                    StringAssert.Contains("tokens", PanelRich.Shown(bar.Rich()));
                    Console.WriteLine(PanelRich.Shown(bar.Rich()));
                    var commands = main.Invoke(() => view.Agent?.Commands?.ToList());
                    Assert.IsNotEmpty(commands, "the agent reported its commands");
                    var slash = new SlashCompletion(commands);
                    slash.Update("/");
                    Assert.IsTrue(slash.Open);
                    var first = slash.Items[0].Name;
                    slash.Update("/" + first);
                    Assert.AreEqual("/" + first + " ", slash.Accept());
                    var models = main.Invoke(() => Pickers.Models(view, null, Language.En));
                    Assert.AreEqual("default model", models[0].Label);

                    // An image attached within the limits goes with the next message as an image block.
                    var images = new ImageAttachments();
                    Assert.AreEqual(AttachmentRefusal.None, images.Add("pixel.png", Convert.FromBase64String(Pixel), Language.En));
                    new PanelActions(client).Send(id, "IMAGE look at this", images).Wait();
                    Assert.IsEmpty(images.Items);
                    var withImage = world.Mock.WaitForRequest(b => b.Contains("IMAGE look at this"));
                    StringAssert.Contains("\"media_type\":\"image/png\"", withImage);
                    StringAssert.Contains(Pixel, withImage);
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
