// In the history view, two foldouts bound the same way (Core decides, this binds): the agents'
// conversations begun outside codiva (OutsideBrowser: search, read one read-only, continue it here
// or in a new worktree), and each group of attempts with its compare figures (AttemptsCompare).
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Panel;
using Codiva.Protocol;
using UnityEngine.UIElements;

namespace Codiva.Editor
{
    public sealed partial class CodivaWindow
    {
        readonly OutsideBrowser outside = new OutsideBrowser();
        readonly Dictionary<string, GroupCompare> compares = new Dictionary<string, GroupCompare>();
        readonly HashSet<string> comparesOpen = new HashSet<string>();
        bool outsideOpen;
        string outsideSelected;

        void BindOutside(CodivaClient client, Language lang)
        {
            var requests = new OutsideActions(client);
            // A conversation just taken on: its session is the one shown.
            if (outside.Stage == OutsideStage.Adopted && outside.AdoptedSession != null && outside.AdoptedSession != outsideSelected)
            {
                var id = outsideSelected = outside.AdoptedSession;
                CodivaHost.Dispatcher.Post(() => { showHistory = false; Select(id); Refresh(); });
            }
            var fold = new Foldout { text = RichText.Escape(Strings.Get(Str.OutsideTitle, lang)), value = outsideOpen };
            fold.RegisterValueChangedCallback(e =>
            {
                outsideOpen = e.newValue;
                if (e.newValue && outside.Stage == OutsideStage.Idle) Then(requests.Search(outside, ""));
            });
            historyPane.Add(fold);
            if (!outsideOpen) return;

            var search = Row();
            var query = new TextField { value = outside.Query };
            search.Add(query);
            search.Add(new Button(() => Then(requests.Search(outside, query.value))) { text = Strings.Get(Str.OutsideSearch, lang) });
            fold.Add(search);
            foreach (var row in outside.Rows)
            {
                var r = row;
                fold.Add(new Label(r.Rich(lang)) { style = { whiteSpace = WhiteSpace.Normal } });
                var buttons = Row();
                buttons.Add(new Button(() => Then(requests.Open(outside, r))) { text = Strings.Get(Str.OutsideRead, lang) });
                buttons.Add(new Button(() => Then(requests.Continue(outside, r, newWorktree: false))) { text = Strings.Get(Str.OutsideContinueHere, lang) });
                buttons.Add(new Button(() => Then(requests.Continue(outside, r, newWorktree: true))) { text = Strings.Get(Str.OutsideContinueWorktree, lang) });
                fold.Add(buttons);
            }
            var footer = outside.Footer(lang);
            if (footer.Length > 0) fold.Add(new Label(RichText.Escape(footer)));
            if (outside.Error != null) fold.Add(new Label(RichText.Escape(outside.Error)) { style = { whiteSpace = WhiteSpace.Normal } });
            if (outside.Open == null || outside.Read == null) return;

            // The conversation read: its items, read-only (no composer), as the main view draws them.
            fold.Add(new Label("<b>" + RichText.Escape(Strings.Get(Str.OutsideReadOnly, lang)) + "</b>") { style = { whiteSpace = WhiteSpace.Normal } });
            foreach (var item in outside.Items(lang))
            {
                if (item.Kind == ItemKind.ToolGroup)
                {
                    var key = item.Key;
                    var group = new Foldout { text = item.Rich, value = false };
                    group.RegisterValueChangedCallback(e => { if (e.newValue) { outside.Expanded.Add(key); Refresh(); } });
                    fold.Add(group);
                    continue;
                }
                if (item.Kind == ItemKind.Tool)
                {
                    var tool = new Foldout { text = item.Rich, value = false };
                    if (item.Tool.Diff.Count > 0) tool.Add(new Label(LineDiff.Rich(item.Tool.Diff, lang)) { style = { whiteSpace = WhiteSpace.Normal } });
                    if (!string.IsNullOrEmpty(item.Tool.Output)) tool.Add(new Label(RichText.Escape(item.Tool.Output)) { style = { whiteSpace = WhiteSpace.Normal } });
                    fold.Add(tool);
                    continue;
                }
                fold.Add(new Label(item.Rich) { style = { whiteSpace = WhiteSpace.Normal } });
            }
        }

        // Each group of attempts (SessionStore.Groups): opened, its figures (group/compare).
        void BindGroups(CodivaClient client, Language lang)
        {
            foreach (var group in client.Store.Groups.Values.OrderByDescending(g => g.CreatedAt))
            {
                var id = group.Id;
                var fold = new Foldout { text = RichText.Escape(Strings.Format(Str.CompareTitle, lang, Words.OneLine(group.Instruction, 120))), value = comparesOpen.Contains(id) };
                fold.RegisterValueChangedCallback(e =>
                {
                    if (e.newValue) { comparesOpen.Add(id); Then(AttemptsCompare.Load(client, id, c => compares[id] = c)); }
                    else comparesOpen.Remove(id);
                });
                GroupCompare compare;
                if (comparesOpen.Contains(id) && compares.TryGetValue(id, out compare))
                    foreach (var column in AttemptsCompare.Columns(compare))
                        fold.Add(new Label(column.Rich(lang)) { style = { whiteSpace = WhiteSpace.Normal } });
                historyPane.Add(fold);
            }
        }
    }
}
