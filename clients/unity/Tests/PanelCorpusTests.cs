// The panel's models over real sessions: every captured session of docs/conformance/session
// (Claude Code, Codex and ACP agents), folded step by step, is drawn after every step by each
// model — conversation (EN and JA), permission card, TODO checklist, status bar with plan usage,
// pickers, slash completion, notifier — and every rich text they make holds only the models'
// own tags, balanced (the agent's text never opens one); every tool call of the log is shown
// exactly once (a card, or in a folded group).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Client;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Protocol;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class PanelCorpusTests
    {
        static string Corpus => Path.Combine(Paths.Root, "docs/conformance/session");

        [Test]
        public void Every_captured_session_is_drawn_safely_after_every_step()
        {
            var files = Directory.GetFiles(Corpus).OrderBy(f => f, StringComparer.Ordinal).ToList();
            Assert.IsNotEmpty(files, "no captured session in " + Corpus);
            var steps = 0;
            var seen = new HashSet<ItemKind>();
            foreach (var file in files)
            {
                var document = JsonRead.Obj(JsonText.Parse(File.ReadAllText(file)));
                var view = new SessionView();
                view.Load(Wire.FromJson<SessionSnapshot>(JsonRead.Get(document, "initial")));
                var plan = new PlanUsageTracker();
                var notifier = new Notifier();
                notifier.SetFocused(false);
                var name = Path.GetFileName(file);
                Draw(name + " initial", view, plan, notifier, seen);
                var list = JsonRead.Arr(document, "steps");
                for (var i = 0; i < list.Count; i++)
                {
                    var ev = new Dictionary<string, object>(JsonRead.Obj(JsonRead.Get(list[i], "event"))) { ["session_id"] = "s", ["seq"] = (long)(i + 1) };
                    var read = Wire.FromJson<SessionEventParams>(ev);
                    view.Apply(read);
                    plan.Observe(read);
                    Draw(name + " step " + i + " (" + read.Event + ")", view, plan, notifier, seen);
                    steps++;
                }
            }
            Console.WriteLine("panel corpus: " + files.Count + " sessions, " + steps + " steps; items seen: " + string.Join(", ", seen.OrderBy(k => k)));
            // The corpus reaches the models' main items (else this test would prove little).
            foreach (var kind in new[] { ItemKind.User, ItemKind.Assistant, ItemKind.Tool, ItemKind.Subagent })
                Assert.IsTrue(seen.Contains(kind), "no " + kind + " in the corpus");
        }

        static void Draw(string where, SessionView view, PlanUsageTracker plan, Notifier notifier, HashSet<ItemKind> seen)
        {
            foreach (var language in new[] { Language.En, Language.Ja })
            {
                var items = Conversation.Build(view, language);
                foreach (var item in items)
                {
                    seen.Add(item.Kind);
                    Safe(where, item.Rich);
                    if (item.Detail != null) Safe(where, item.Detail);
                    if (item.Tool != null) Safe(where, LineDiff.Rich(item.Tool.Diff, language));
                }
                // Every tool call once: as a card or inside a group.
                var shown = items.Where(i => i.Tool != null).Select(i => i.Tool.EntryId)
                    .Concat(items.Where(i => i.Tools != null).SelectMany(i => i.Tools).Select(t => t.EntryId)).ToList();
                var calls = view.Log.Where(e => e.Kind == "tool").Select(e => e.Id).ToList();
                Assert.AreEqual(calls, shown.OrderBy(id => id).ToList(), where + ": tool calls shown");
                Assert.AreEqual(shown.Count, shown.Distinct().Count(), where);
                var card = PermissionCard.Of("s", view, language);
                if (card != null)
                {
                    Safe(where, card.RichHeading(language));
                    // Every option offered is on the card once (but kinds of a later version).
                    var offered = card.Always.Select(c => c.OptionId).Concat(new[] { card.AllowOnce, card.Deny, card.DenyAndStop }.Where(c => c != null).Select(c => c.OptionId));
                    Assert.AreEqual(card.Prompt.Options.Where(o => Known.PermissionOptionKind.IsKnown(o.Kind)).Select(o => o.Id).OrderBy(x => x), offered.OrderBy(x => x), where);
                }
                foreach (var line in TodoList.Lines(view)) Safe(where, line.Rich);
                Safe(where, StatusBar.Of(view, plan, 0, language).Rich());
                var slash = new SlashCompletion(view.Agent?.Commands);
                slash.Update("/");
                foreach (var item in slash.Items) Safe(where, item.Rich);
                Assert.LessOrEqual(Pickers.Models(view, null, language).Count(m => m.Current), 1, where + ": at most one current model");
                foreach (var notice in notifier.Observe("s", view, language)) Assert.IsFalse(notice.Words.Contains("\n"), where);
            }
        }

        static void Safe(string where, string rich)
        {
            try { PanelRich.Shown(rich); }
            catch (AssertionException error) { Assert.Fail(where + ": " + error.Message); }
        }
    }
}
