// The conversation as the panel shows it, from a session's view (Codiva.Client.SessionView, the
// protocol's fold): messages (the agent's as Markdown through RichText), thinking and compaction
// markers, notes, tool cards with three or more consecutive completed calls folded into one
// group, subagent cards next to the tool call that started them, the message being written
// (batched: StreamBatcher) and the TODO checklist. Pure functions of the view; the Editor binds
// the items and decides nothing.
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Protocol;

namespace Codiva.Panel
{
    public enum ItemKind { User, Assistant, Thinking, Compaction, Note, Tool, ToolGroup, Subagent, SubagentPrompt, Streaming }

    public sealed class ConversationItem
    {
        public ItemKind Kind;
        /// A stable key: the log entry's id (a group: its first call's; a subagent: its tool-use
        /// id; the message being written: "streaming").
        public string Key;
        /// A label's whole rich text: outside text only ever through RichText.
        public string Rich;
        /// For notes: `info`, `warning`, `error` (the style class).
        public string Level;
        public ToolCard Tool;
        /// For a group: its calls, in order.
        public List<ToolCard> Tools;
        public SubagentCard Subagent;
        /// For a thinking marker: the thinking (rich text), shown when expanded.
        public string Detail;
        /// Its place in the log: the entry's id (a group: its first call's; a subagent: its
        /// call's; one whose call is not in the log and the message being written: after all).
        /// `TranscriptWindow` keeps its first drawn item by it.
        public long Order;
    }

    public static class Conversation
    {
        /// Consecutive completed tool calls fold into one group from this many.
        public const int FoldFrom = 3;

        /// The items of `view`. `expanded`: keys of groups the user opened (their calls are
        /// shown one by one).
        public static List<ConversationItem> Build(SessionView view, Language language, ISet<string> expanded = null, string streaming = null)
        {
            var items = new List<ConversationItem>();
            var subagents = new Dictionary<string, SubagentView>();
            foreach (var subagent in view.Subagents)
                if (subagent?.ToolUseId != null) subagents[subagent.ToolUseId] = subagent;
            var anchored = new HashSet<string>();
            var run = new List<ToolCard>();

            foreach (var entry in view.Log)
            {
                if (entry == null) continue;
                if (entry.Kind == Known.LogEntry.Tool)
                {
                    var card = ToolCard.Of(entry);
                    SubagentView subagent;
                    if (card.ToolUseId != null && subagents.TryGetValue(card.ToolUseId, out subagent))
                    {
                        // A subagent's call is its card, never folded.
                        Flush(items, run, expanded, language);
                        items.Add(ToolItem(card, language));
                        var nested = SubagentItem(subagent, language);
                        nested.Order = card.EntryId;
                        items.Add(nested);
                        anchored.Add(subagent.ToolUseId);
                        continue;
                    }
                    if (card.Completed) { run.Add(card); continue; }
                    Flush(items, run, expanded, language);
                    items.Add(ToolItem(card, language));
                    continue;
                }
                Flush(items, run, expanded, language);
                var item = EntryItem(entry, language);
                if (item != null) items.Add(item);
            }
            Flush(items, run, expanded, language);
            // Subagents whose call is not in the log (dropped from its front): at the end.
            foreach (var subagent in view.Subagents)
                if (subagent?.ToolUseId != null && !anchored.Contains(subagent.ToolUseId))
                {
                    var orphan = SubagentItem(subagent, language);
                    orphan.Order = long.MaxValue - 1;
                    items.Add(orphan);
                }
            var text = streaming ?? view.Streaming;
            if (!string.IsNullOrEmpty(text))
                // Plain while it is written; Markdown once it is a log entry.
                items.Add(new ConversationItem { Kind = ItemKind.Streaming, Key = "streaming", Order = long.MaxValue, Rich = RichText.Escape(text) });
            return items;
        }

        static void Flush(List<ConversationItem> items, List<ToolCard> run, ISet<string> expanded, Language language)
        {
            if (run.Count == 0) return;
            var key = run[0].EntryId.ToString(System.Globalization.CultureInfo.InvariantCulture);
            if (run.Count >= FoldFrom && (expanded == null || !expanded.Contains(key)))
            {
                var names = string.Join(", ", run.Select(c => c.Title).Distinct());
                items.Add(new ConversationItem
                {
                    Kind = ItemKind.ToolGroup,
                    Key = key,
                    Order = run[0].EntryId,
                    Tools = new List<ToolCard>(run),
                    Rich = "<b>" + RichText.Escape(Strings.Format(Str.ToolsFolded, language, run.Count)) + "</b>  " + RichText.Escape(Words.OneLine(names, 120)),
                });
            }
            else foreach (var card in run) items.Add(ToolItem(card, language));
            run.Clear();
        }

        static ConversationItem ToolItem(ToolCard card, Language language) => new ConversationItem
        {
            Kind = ItemKind.Tool,
            Key = card.EntryId.ToString(System.Globalization.CultureInfo.InvariantCulture),
            Order = card.EntryId,
            Tool = card,
            Rich = card.RichHeader(language),
        };

        static ConversationItem SubagentItem(SubagentView subagent, Language language)
        {
            var card = SubagentCard.Of(subagent);
            return new ConversationItem { Kind = ItemKind.Subagent, Key = subagent.ToolUseId, Subagent = card, Rich = card.Rich(language) };
        }

        static ConversationItem EntryItem(LogEntry entry, Language language)
        {
            var item = EntryItemOf(entry, language);
            if (item != null) item.Order = entry.Id;
            return item;
        }

        static ConversationItem EntryItemOf(LogEntry entry, Language language)
        {
            var key = entry.Id.ToString(System.Globalization.CultureInfo.InvariantCulture);
            switch (entry.Kind)
            {
                case Known.LogEntry.User:
                    return new ConversationItem { Kind = ItemKind.User, Key = key, Rich = RichText.Escape(entry.Text) };
                case Known.LogEntry.Assistant:
                    return new ConversationItem { Kind = ItemKind.Assistant, Key = key, Rich = RichText.FromMarkdown(entry.Text) };
                case Known.LogEntry.Thinking:
                    return new ConversationItem
                    {
                        Kind = ItemKind.Thinking,
                        Key = key,
                        Rich = "<i>" + RichText.Escape(Strings.Get(Str.Thinking, language)) + "</i>",
                        Detail = RichText.Escape(entry.Text),
                    };
                case Known.LogEntry.SubagentPrompt:
                    return new ConversationItem { Kind = ItemKind.SubagentPrompt, Key = key, Rich = RichText.Escape(entry.Text) };
                case Known.LogEntry.Note:
                    // A request the session's approval policy allowed: every one is shown.
                    if (entry.Code?.Name == Known.NoteName.AllowedByPolicy && entry.Code.Args != null && entry.Code.Args.Count > 0)
                        return new ConversationItem { Kind = ItemKind.Note, Key = key, Level = Known.NoteLevel.Info, Rich = RichText.Escape(Strings.Format(Str.AllowedByPolicy, language, Words.OneLine(entry.Code.Args[0], 120))) };
                    if (entry.Code?.Name == Known.NoteName.Compacted)
                        return new ConversationItem { Kind = ItemKind.Compaction, Key = key, Level = entry.Level, Rich = RichText.Escape(CompactionWords(entry.Code, language)) };
                    return new ConversationItem { Kind = ItemKind.Note, Key = key, Level = entry.Level ?? Known.NoteLevel.Info, Rich = RichText.Escape(entry.Text) };
                default:
                    // An entry kind of a later version: its text, as text.
                    return string.IsNullOrEmpty(entry.Text) ? null : new ConversationItem { Kind = ItemKind.Note, Key = key, Level = Known.NoteLevel.Info, Rich = RichText.Escape(entry.Text) };
            }
        }

        /// The compaction divider's words: args are the trigger (`auto`, `manual`) and the tokens
        /// before, each empty when the agent did not say (docs/serve-api.md, `compacted`).
        public static string CompactionWords(NoteCode code, Language language)
        {
            var args = code?.Args ?? new List<string>();
            long tokens;
            if (args.Count > 1 && long.TryParse(args[1], System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out tokens))
                return Strings.Format(Str.CompactedTokens, language, Words.Tokens(tokens));
            if (args.Count > 0 && args[0] == "auto") return Strings.Get(Str.CompactedAuto, language);
            return Strings.Get(Str.Compacted, language);
        }
    }

    /// A subagent the agent started (the `Agent`/`Task` call's nested card).
    public sealed class SubagentCard
    {
        public string ToolUseId;
        /// The subagent's type (a badge), one line.
        public string Type;
        public string Description;
        public string Status;
        public string LastTool;
        public long Tokens;
        public long ToolUses;
        public long ElapsedMs;
        public bool Background;
        /// Its final summary (Markdown from the model).
        public string Summary;

        public static SubagentCard Of(SubagentView view) => new SubagentCard
        {
            ToolUseId = view.ToolUseId,
            Type = Words.OneLine(view.SubagentType, 40),
            Description = Words.OneLine(view.Description, 120),
            Status = view.Status,
            LastTool = ToolDescriber.Title(view.LastTool, null),
            Tokens = view.Tokens,
            ToolUses = view.ToolUses,
            ElapsedMs = view.ElapsedMs,
            Background = view.Background,
            Summary = view.Summary,
        };

        public bool Settled => Status != Known.SubagentStatus.Running && Status != Known.SubagentStatus.Starting;

        public string StatusWords(Language language)
        {
            switch (Status)
            {
                case Known.SubagentStatus.Starting: return Strings.Get(Str.SubagentStarting, language);
                case Known.SubagentStatus.Running: return Strings.Get(Str.SubagentRunning, language);
                case Known.SubagentStatus.Completed: return Strings.Get(Str.SubagentCompleted, language);
                case Known.SubagentStatus.Failed: return Strings.Get(Str.SubagentFailed, language);
                case Known.SubagentStatus.Stopped: return Strings.Get(Str.SubagentStopped, language);
                // `unknown` and a later version's word: settled, nothing more known.
                default: return Strings.Get(Str.SubagentUnknown, language);
            }
        }

        /// `[type] description · running` / progress line / last tool / the summary (Markdown).
        public string Rich(Language language)
        {
            var head = (Type.Length > 0 ? "<b>" + RichText.Escape("[" + Type + "]") + "</b> " : "") + RichText.Escape(Description + " · " + StatusWords(language));
            var progress = Strings.Format(Str.SubagentSteps, language, ToolUses, Words.Tokens(Tokens), Words.Duration(ElapsedMs, language));
            if (!Settled && LastTool.Length > 0) progress += " · " + Strings.Format(Str.SubagentLastTool, language, LastTool);
            var rich = head + "\n" + RichText.Escape(progress);
            if (Settled && !string.IsNullOrEmpty(Summary)) rich += "\n" + RichText.FromMarkdown(Summary);
            return rich;
        }
    }

    /// One line of the TODO checklist.
    public sealed class TodoLine
    {
        public string Id;
        /// `pending`, `in_progress`, `completed` (a later version's word kept).
        public string Status;
        /// `☐`, `◐`, `☑`.
        public string Glyph;
        public string Rich;
    }

    public static class TodoList
    {
        /// The checklist's heading (`Tasks 2/5`); "" with no items.
        public static string Heading(SessionView view, Language language) =>
            view.TodoItems == null || view.TodoItems.Count == 0 ? "" : Strings.Format(Str.Todos, language, view.Todos?.Done ?? 0, view.Todos?.Total ?? view.TodoItems.Count);

        public static List<TodoLine> Lines(SessionView view)
        {
            var lines = new List<TodoLine>();
            if (view.TodoItems == null) return lines;
            foreach (var item in view.TodoItems)
            {
                if (item == null) continue;
                var glyph = item.Status == Known.TodoStatus.Completed ? "☑" : item.Status == Known.TodoStatus.InProgress ? "◐" : "☐";
                var text = RichText.Escape(Words.OneLine(item.Content, 200));
                // The item in progress stands out; a done one is dimmed.
                if (item.Status == Known.TodoStatus.InProgress) text = "<b>" + text + "</b>";
                else if (item.Status == Known.TodoStatus.Completed) text = "<color=" + RichText.BadgeColor + ">" + text + "</color>";
                lines.Add(new TodoLine { Id = item.Id, Status = item.Status, Glyph = glyph, Rich = glyph + " " + text });
            }
            return lines;
        }
    }

    /// The message being written, shown in batches: a label is given new text at most every
    /// `IntervalMs` (a stream delta comes every few milliseconds; re-laying-out a label for each
    /// one is what makes an Editor panel stutter), and at once when the text starts over or ends.
    /// The caller passes its clock (the Editor: `EditorApplication.timeSinceStartup`).
    public sealed class StreamBatcher
    {
        public const long IntervalMs = 80;
        string latest = "";
        long shownAtMs = long.MinValue;

        /// The text shown now.
        public string Shown { get; private set; } = "";

        /// The session's streamed text changed (`SessionStore.StreamChanged`): the text it is now.
        public void Offer(string text) => latest = text ?? "";

        /// Called on each Editor update: true when `Shown` changed (the label is to be set).
        public bool Pump(long nowMs)
        {
            if (latest == Shown) return false;
            // A new message (the text does not continue the one shown) or an end: at once.
            var continues = latest.Length > Shown.Length && latest.StartsWith(Shown, System.StringComparison.Ordinal);
            if (continues && shownAtMs != long.MinValue && nowMs - shownAtMs < IntervalMs) return false;
            Shown = latest;
            shownAtMs = nowMs;
            return true;
        }
    }
}
