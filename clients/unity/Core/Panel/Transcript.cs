// The transcript's render cap and what the user opened in it. A long session's conversation has
// thousands of items; drawing every one makes a UI Toolkit panel slow. `TranscriptWindow` keeps
// at most `Cap` items drawn, with `Slack` more allowed before it prunes: the drawn part grows one
// item at a time and, past Cap + Slack, drops its oldest items down to Cap in one batch (so the
// first drawn item — and the scroll position above it — moves once every Slack items, not with
// each). "Show earlier" draws Slack more of what is hidden. `ExpandMemory` remembers which
// foldouts the user opened or closed, by session, item key (the log entry's id) and part, so a
// redraw, a prune or switching sessions does not reset them; it is bounded.
using System;
using System.Collections.Generic;

namespace Codiva.Panel
{
    /// What to draw of a conversation: its last items, and how many earlier ones are not drawn.
    public sealed class TranscriptSlice
    {
        public List<ConversationItem> Items;
        public int Hidden;

        /// `12 earlier items not shown` (escaped), "" when none are hidden.
        public string HiddenRich(Language language) => Hidden == 0 ? "" : RichText.Escape(Strings.Format(Str.TranscriptEarlier, language, Hidden));
    }

    /// The drawn part of one session's conversation (one per session shown).
    public sealed class TranscriptWindow
    {
        public const int DefaultCap = 300;
        public const int DefaultSlack = 50;

        public readonly int Cap;
        public readonly int Slack;
        // The first drawn item, by its place in the log (ConversationItem.Order): a key may go
        // (a call folded into a group), a place does not.
        long? first;
        // Items the user asked to see beyond the cap ("Show earlier").
        int revealed;
        // Asked to show earlier, applied at the next Apply.
        int back;

        public TranscriptWindow(int cap = DefaultCap, int slack = DefaultSlack)
        {
            if (cap < 1 || slack < 1) throw new ArgumentOutOfRangeException(cap < 1 ? nameof(cap) : nameof(slack));
            Cap = cap;
            Slack = slack;
        }

        /// What to draw of `items` (the whole conversation, oldest first: Conversation.Build).
        public TranscriptSlice Apply(IList<ConversationItem> items)
        {
            var count = items.Count;
            var start = first.HasValue ? StartAt(items, first.Value) : 0;
            if (back > 0)
            {
                var moved = Math.Min(back, start);
                start -= moved;
                revealed += moved;
                back = 0;
            }
            // Past the cap and its slack: the oldest go, in one batch, down to the cap.
            if (count - start > Cap + revealed + Slack) start = count - (Cap + revealed);
            first = count == 0 ? (long?)null : items[Math.Min(start, count - 1)].Order;
            var drawn = new List<ConversationItem>(count - start);
            for (var i = start; i < count; i++) drawn.Add(items[i]);
            return new TranscriptSlice { Items = drawn, Hidden = start };
        }

        /// "Show earlier": the next Apply draws Slack more of the hidden items (and keeps them
        /// while the cap is raised by them).
        public void ShowEarlier() => back += Slack;

        // The item that holds `order`: the first of those with the greatest place not after it
        // (a group that took the call in, or the call itself before its subagent's card); none
        // (the log lost its front): the first item.
        static int StartAt(IList<ConversationItem> items, long order)
        {
            var found = 0;
            long best = long.MinValue;
            for (var i = 0; i < items.Count; i++)
            {
                var place = items[i].Order;
                if (place > order) break;
                if (place > best) { best = place; found = i; }
            }
            return found;
        }
    }

    /// Which foldouts (tool cards, groups, thinking, parts of a card) the user opened or closed,
    /// by session, item key and part. A foldout the user never touched follows its default (a
    /// running call open, a finished one closed). The oldest of more than `Capacity` choices is
    /// forgotten.
    public sealed class ExpandMemory
    {
        public const int DefaultCapacity = 2000;
        public readonly int Capacity;
        readonly Dictionary<string, LinkedListNode<KeyValuePair<string, bool>>> choices = new Dictionary<string, LinkedListNode<KeyValuePair<string, bool>>>();
        readonly LinkedList<KeyValuePair<string, bool>> order = new LinkedList<KeyValuePair<string, bool>>();

        public ExpandMemory(int capacity = DefaultCapacity)
        {
            if (capacity < 1) throw new ArgumentOutOfRangeException(nameof(capacity));
            Capacity = capacity;
        }

        public int Count => choices.Count;

        static string Id(string session, string key, string part) => (session ?? "") + "\n" + (key ?? "") + "\n" + (part ?? "");

        /// Whether the foldout is open: the user's choice, else `byDefault`.
        public bool IsOpen(string session, string key, string part, bool byDefault)
        {
            LinkedListNode<KeyValuePair<string, bool>> node;
            return choices.TryGetValue(Id(session, key, part), out node) ? node.Value.Value : byDefault;
        }

        /// The user opened (`open`) or closed a foldout.
        public void Set(string session, string key, string part, bool open)
        {
            var id = Id(session, key, part);
            LinkedListNode<KeyValuePair<string, bool>> node;
            if (choices.TryGetValue(id, out node)) order.Remove(node);
            node = order.AddLast(new KeyValuePair<string, bool>(id, open));
            choices[id] = node;
            while (choices.Count > Capacity)
            {
                choices.Remove(order.First.Value.Key);
                order.RemoveFirst();
            }
        }

        /// The keys of `session`'s items opened as a whole (part none): the groups
        /// Conversation.Build shows call by call.
        public ISet<string> Opened(string session)
        {
            var prefix = (session ?? "") + "\n";
            var opened = new HashSet<string>();
            foreach (var choice in order)
            {
                if (!choice.Value || !choice.Key.StartsWith(prefix, StringComparison.Ordinal) || !choice.Key.EndsWith("\n", StringComparison.Ordinal)) continue;
                opened.Add(choice.Key.Substring(prefix.Length, choice.Key.Length - prefix.Length - 1));
            }
            return opened;
        }
    }
}
