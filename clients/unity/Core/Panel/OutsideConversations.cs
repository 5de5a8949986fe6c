// The agents' own conversations for this repository that codiva does not manage — begun in a
// plain terminal (Claude Code's transcripts, Codex's rollouts): listed (`history/list`, with a
// search), opened read-only (`history/read`: the log rebuilt from the agent's record, shown as
// conversation items through the same Conversation / ToolCards models, so every piece of the
// transcript — user-written and model-written text from outside codiva — reaches a label only
// through RichText), and continued in codiva (`history/adopt`, in place or in a new worktree on a
// new branch). docs/serve-api.md, "history/list, history/read, history/adopt", says what each
// does. This is not History (codiva's own sessions).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading.Tasks;
using Codiva.Client;
using Codiva.Protocol;
using Codiva.Rpc;

namespace Codiva.Panel
{
    /// One conversation begun outside codiva, as the list shows it. All text is plain.
    public sealed class OutsideRow
    {
        public string Agent;
        public string Id;
        public string Cwd;
        public long ModifiedMs;
        public long SizeBytes;
        /// One line (the record's own text, made one line again here: outside text).
        public string FirstInstruction;

        public OutsideConversationRef Ref => new OutsideConversationRef { Agent = Agent, Id = Id, Cwd = Cwd };

        /// `<b>first instruction</b>  claude · 2026-12-07 08:40 · 12 KB` (rich text, escaped);
        /// `zone`: the time zone the date is shown in (the Editor: local).
        public string Rich(Language language, TimeZoneInfo zone = null)
        {
            var title = FirstInstruction.Length > 0 ? FirstInstruction : Strings.Get(Str.OutsideNoInstruction, language);
            var at = TimeZoneInfo.ConvertTime(DateTimeOffset.FromUnixTimeMilliseconds(Math.Max(0, ModifiedMs)), zone ?? TimeZoneInfo.Local);
            var facts = Words.OneLine(Agent, 40) + " · " + at.ToString("yyyy-MM-dd HH:mm", CultureInfo.InvariantCulture) + " · " + OutsideConversations.Size(SizeBytes);
            return "<b>" + RichText.Escape(title) + "</b>  " + RichText.Escape(facts) + "\n<color=" + RichText.BadgeColor + ">" + RichText.Escape(Words.OneLine(Cwd, 200)) + "</color>";
        }
    }

    public static class OutsideConversations
    {
        /// `history/list`'s params: the search as typed (trimmed; empty is every conversation).
        public static HistoryListParams List(string query)
        {
            var q = (query ?? "").Trim();
            return new HistoryListParams { Query = q.Length == 0 ? null : q };
        }

        /// The rows of `history/list`'s answer, newest first.
        public static List<OutsideRow> Rows(HistoryListResult result) =>
            (result?.Conversations ?? new List<OutsideConversation>())
                .Where(c => c?.Id != null && c.Agent != null && c.Cwd != null)
                .OrderByDescending(c => c.ModifiedMs)
                .ThenBy(c => c.Id, StringComparer.Ordinal)
                .Select(c => new OutsideRow
                {
                    Agent = c.Agent,
                    Id = c.Id,
                    Cwd = c.Cwd,
                    ModifiedMs = c.ModifiedMs,
                    SizeBytes = c.SizeBytes,
                    FirstInstruction = Words.OneLine(c.FirstInstruction, 200),
                })
                .ToList();

        /// `history/adopt`'s params: in place (the directory it ran in) or in a new worktree on a
        /// new branch.
        public static HistoryAdoptParams Adopt(OutsideRow row, bool newWorktree) => new HistoryAdoptParams
        {
            Agent = row.Agent,
            Id = row.Id,
            Cwd = row.Cwd,
            Place = newWorktree ? Known.AdoptPlace.Worktree : Known.AdoptPlace.InPlace,
        };

        /// The conversation read as a view of its own: its log only (nothing runs; no prompts,
        /// no stream). A view, so the conversation models draw it as they draw a session.
        public static SessionView View(HistoryReadResult read)
        {
            var view = new SessionView();
            view.Load(new SessionSnapshot
            {
                Status = Known.Status.Completed,
                Log = (read?.Entries ?? new List<LogEntry>()).Where(e => e != null).ToList(),
                DroppedEntries = read?.DroppedEntries ?? 0,
                Prompts = new List<Prompt>(),
                Subagents = new List<SubagentView>(),
            });
            return view;
        }

        /// The items of a conversation read (`expanded`: groups of tool calls opened), after a
        /// note saying how much of a large record was left out.
        public static List<ConversationItem> Items(HistoryReadResult read, Language language, ISet<string> expanded = null)
        {
            var items = new List<ConversationItem>();
            var left = new List<string>();
            if (read != null && read.SkippedBytes > 0) left.Add(Strings.Format(Str.OutsideSkipped, language, Size(read.SkippedBytes)));
            if (read != null && read.DroppedEntries > 0) left.Add(Strings.Format(Str.OutsideDropped, language, read.DroppedEntries));
            if (left.Count > 0)
                items.Add(new ConversationItem { Kind = ItemKind.Note, Key = "left-out", Level = Known.NoteLevel.Info, Order = long.MinValue, Rich = RichText.Escape(string.Join(" · ", left)) });
            // The record's text is the agent's and the user's: the conversation models escape it
            // (user text as text, the agent's Markdown through RichText), never a raw label.
            items.AddRange(Conversation.Build(View(read), language, expanded, ""));
            return items;
        }

        /// A record's size: `512 B`, `12 KB`, `3.4 MB`, `1.2 GB` (1024-based).
        public static string Size(long bytes)
        {
            if (bytes < 0) bytes = 0;
            if (bytes < 1024) return bytes.ToString(CultureInfo.InvariantCulture) + " B";
            double value = bytes / 1024.0;
            foreach (var unit in new[] { "KB", "MB", "GB" })
            {
                if (value < 1024 || unit == "GB")
                    return (value >= 100 ? Math.Floor(value).ToString("0", CultureInfo.InvariantCulture) : (Math.Floor(value * 10) / 10).ToString("0.#", CultureInfo.InvariantCulture)) + " " + unit;
                value /= 1024;
            }
            return bytes.ToString(CultureInfo.InvariantCulture) + " B";
        }
    }

    public enum OutsideStage { Idle, Listing, Listed, Reading, Read, Adopting, Adopted, Failed }

    /// The history view's state of the conversations begun outside: the search, the rows, the one
    /// open (read-only) and the adoption. Requests go through OutsideActions; their answers come
    /// back here (on the dispatcher's thread).
    public sealed class OutsideBrowser
    {
        public OutsideStage Stage { get; private set; } = OutsideStage.Idle;
        public string Query { get; private set; } = "";
        public List<OutsideRow> Rows { get; private set; } = new List<OutsideRow>();
        /// More matched than codiva lists (500): search to narrow.
        public bool More { get; private set; }
        /// The conversation open (read-only), and what `history/read` answered for it.
        public OutsideRow Open { get; private set; }
        public HistoryReadResult Read { get; private set; }
        /// The session that took the conversation on (its id), once adopted.
        public string AdoptedSession { get; private set; }
        public string Error { get; private set; }
        /// Groups of tool calls the user opened in the conversation read.
        public readonly HashSet<string> Expanded = new HashSet<string>();
        /// The latest listing and reading asked for: an answer to an earlier one is not shown
        /// (a search typed while the last one was answered, another conversation opened).
        public int Listing { get; private set; }
        public int Reading { get; private set; }

        /// Begins a listing with `query`: its params.
        public HistoryListParams Search(string query)
        {
            Query = (query ?? "").Trim();
            Listing++;
            Stage = OutsideStage.Listing;
            Error = null;
            return OutsideConversations.List(Query);
        }

        /// `history/list`'s answer to listing `asked` (Listing when it was sent).
        public void Listed(HistoryListResult result, int asked)
        {
            if (asked != Listing) return;
            Listed(result);
        }

        public void Listed(HistoryListResult result)
        {
            Rows = OutsideConversations.Rows(result);
            More = result?.More ?? false;
            Stage = OutsideStage.Listed;
        }

        /// Opens `row` read-only: the params of its `history/read`.
        public OutsideConversationRef Begin(OutsideRow row)
        {
            Open = row;
            Read = null;
            Expanded.Clear();
            Reading++;
            Stage = OutsideStage.Reading;
            Error = null;
            return row.Ref;
        }

        /// `history/read`'s answer to reading `asked` (Reading when it was sent).
        public void Opened(HistoryReadResult result, int asked)
        {
            if (asked != Reading) return;
            Opened(result);
        }

        public void Opened(HistoryReadResult result)
        {
            Read = result;
            Stage = OutsideStage.Read;
        }

        /// The conversation open, as items (empty while none is read).
        public List<ConversationItem> Items(Language language) =>
            Read == null ? new List<ConversationItem>() : OutsideConversations.Items(Read, language, Expanded);

        /// Continues the open conversation (or `row`) in codiva: the params of its `history/adopt`.
        public HistoryAdoptParams Continue(OutsideRow row, bool newWorktree)
        {
            Stage = OutsideStage.Adopting;
            Error = null;
            return OutsideConversations.Adopt(row, newWorktree);
        }

        /// The conversation is codiva's now: no longer listed (codiva lists it no more either).
        public void Adopted(SessionResult result, OutsideRow row)
        {
            AdoptedSession = result?.Session?.Id;
            Rows.RemoveAll(r => r.Agent == row.Agent && r.Id == row.Id && r.Cwd == row.Cwd);
            if (Open != null && Open.Agent == row.Agent && Open.Id == row.Id && Open.Cwd == row.Cwd) { Open = null; Read = null; }
            Stage = OutsideStage.Adopted;
        }

        /// A refusal (its message, one line: `in_place_busy` and the like say what to do).
        public void Refused(RpcException error)
        {
            Stage = OutsideStage.Failed;
            Error = Words.OneLine(error?.Message, 300);
        }

        /// What the list says when it is empty, or that it is cut (plain).
        public string Footer(Language language) =>
            Stage == OutsideStage.Listed && Rows.Count == 0 ? Strings.Get(Str.OutsideNone, language)
            : More ? Strings.Format(Str.OutsideMore, language, Rows.Count)
            : "";
    }

    /// The requests of OutsideBrowser, through the client's generic request; each answer or
    /// refusal goes back to the browser.
    public sealed class OutsideActions
    {
        readonly CodivaClient client;

        public OutsideActions(CodivaClient client) { this.client = client; }

        public Task<HistoryListResult> Search(OutsideBrowser browser, string query)
        {
            var asked = browser.Search(query);
            var listing = browser.Listing;
            return client.Request(Methods.HistoryList, asked, result => browser.Listed(result, listing), browser.Refused);
        }

        public Task<HistoryReadResult> Open(OutsideBrowser browser, OutsideRow row)
        {
            var asked = browser.Begin(row);
            var reading = browser.Reading;
            return client.Request(Methods.HistoryRead, asked, result => browser.Opened(result, reading), browser.Refused);
        }

        /// Adopts `row`; the session is watched (its view loaded and kept) once codiva answers.
        public Task<SessionResult> Continue(OutsideBrowser browser, OutsideRow row, bool newWorktree) =>
            client.Request(Methods.HistoryAdopt, browser.Continue(row, newWorktree), result =>
            {
                browser.Adopted(result, row);
                if (browser.AdoptedSession != null) client.Watch(browser.AdoptedSession);
            }, browser.Refused);
    }
}
