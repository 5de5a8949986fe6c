// Slash-command completion in the composer, from the agent's own catalog: the `commands` it
// reported when it connected (`session/connected`'s `agent.commands`, also in the session's
// snapshot: SessionView.Agent.Commands). Typing `/` and a word lists the commands whose name
// starts with it (then those that contain it); Up/Down move, Tab/Enter put `/name ` into the
// composer, Esc closes. A chosen command is sent as the text it is: the agent runs it.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Protocol;

namespace Codiva.Panel
{
    public sealed class SlashItem
    {
        /// Without the `/`.
        public string Name;
        public string ArgumentHint;
        public string Description;

        /// `/name <hint>  description` as rich text (the agent's words escaped).
        public string Rich => "<b>" + RichText.Escape("/" + Name) + "</b>"
            + (ArgumentHint.Length > 0 ? " " + RichText.Escape(ArgumentHint) : "")
            + (Description.Length > 0 ? "  " + RichText.Escape(Description) : "");
    }

    public sealed class SlashCompletion
    {
        public const int MaxItems = 50;
        readonly List<SlashItem> catalog;
        bool dismissed;
        string dismissedFor;

        public SlashCompletion(IEnumerable<CommandInfo> commands)
        {
            catalog = new List<SlashItem>();
            var seen = new HashSet<string>();
            foreach (var command in commands ?? Enumerable.Empty<CommandInfo>())
            {
                var name = Words.OneLine(command?.Name, 80).TrimStart('/');
                if (name.Length == 0 || name.Contains(' ') || !seen.Add(name)) continue;
                catalog.Add(new SlashItem
                {
                    Name = name,
                    ArgumentHint = Words.OneLine(command.ArgumentHint, 60),
                    Description = Words.OneLine(command.Description, 120),
                });
            }
        }

        /// The popup's items for the composer's text (empty: no popup).
        public List<SlashItem> Items { get; private set; } = new List<SlashItem>();
        public int Selected { get; private set; }
        public bool Open => Items.Count > 0;

        /// The composer's text changed: a `/` at its start followed by a word (no space yet)
        /// opens the popup with the matching commands.
        public void Update(string text)
        {
            Items = new List<SlashItem>();
            Selected = 0;
            if (string.IsNullOrEmpty(text) || text[0] != '/' || text.IndexOfAny(new[] { ' ', '\n', '\t' }) >= 0) { dismissed = false; return; }
            if (dismissed && text == dismissedFor) return;
            dismissed = false;
            var query = text.Substring(1);
            var starts = catalog.Where(c => c.Name.StartsWith(query, StringComparison.OrdinalIgnoreCase));
            var contains = catalog.Where(c => !c.Name.StartsWith(query, StringComparison.OrdinalIgnoreCase)
                && c.Name.IndexOf(query, StringComparison.OrdinalIgnoreCase) >= 0);
            Items = starts.OrderBy(c => c.Name, StringComparer.Ordinal)
                .Concat(contains.OrderBy(c => c.Name, StringComparer.Ordinal)).Take(MaxItems).ToList();
        }

        /// Up (-1) or Down (+1), wrapping.
        public void Move(int step)
        {
            if (Items.Count == 0) return;
            Selected = ((Selected + step) % Items.Count + Items.Count) % Items.Count;
        }

        /// Tab/Enter: the composer's new text (`/name `), or null when the popup is closed.
        public string Accept()
        {
            if (Items.Count == 0) return null;
            var text = "/" + Items[Selected].Name + " ";
            Items = new List<SlashItem>();
            return text;
        }

        /// Esc: closed until the text changes.
        public void Dismiss(string text)
        {
            Items = new List<SlashItem>();
            dismissed = true;
            dismissedFor = text;
        }
    }
}
