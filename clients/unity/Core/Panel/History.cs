// The history of the repository's sessions: the daemon's rows (`manager/snapshot` and
// `session/updated`, kept by the SessionStore), newest first, searchable, each with what can be
// done to it — open (watch it), rename (`session/rename`), discard (`session/discard`, two steps:
// a preview, then the token that confirms exactly that; DiscardFlow) and restore
// (`session/restore`, for a discarded one). docs/serve-api.md says what each does.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Codiva.Client;
using Codiva.Json;
using Codiva.Protocol;
using Codiva.Rpc;

namespace Codiva.Panel
{
    public sealed class HistoryRow
    {
        public string Id;
        /// One line (plain).
        public string Title;
        public string Status;
        public string Phase;
        public string Agent;
        /// Milliseconds since the Unix epoch.
        public long CreatedAt;
        public long PendingPrompts;
        public bool CanOpen;
        public bool CanRename;
        public bool CanDiscard;
        public bool CanRestore;

        /// The row's label: title, then its phase or status (rich text, escaped).
        public string Rich(Language language)
        {
            var state = Phase == Known.SessionInfo.Discarded ? Strings.Get(Str.PhaseDiscarded, language)
                : Phase == Known.SessionInfo.Merged ? Strings.Get(Str.PhaseMerged, language)
                : Words.OneLine(Status, 40);
            return "<b>" + RichText.Escape(Title) + "</b>  " + RichText.Escape(state);
        }
    }

    public static class History
    {
        /// A title is cut to this many characters by codiva (`session/rename`).
        public const int MaxTitle = 80;

        public static List<HistoryRow> Rows(SessionStore store, string query = null) =>
            Rows(store.Order.Select(id => store[id]?.Row).Where(r => r != null), query);

        /// The rows matching `query` (in the title, the first instruction or the id; any case),
        /// newest first.
        public static List<HistoryRow> Rows(IEnumerable<SessionInfo> rows, string query = null)
        {
            var q = (query ?? "").Trim();
            return rows
                .Where(r => r?.Id != null)
                .Where(r => q.Length == 0
                    || Contains(r.Title, q) || Contains(r.Prompt, q) || Contains(r.Id, q))
                .OrderByDescending(r => r.CreatedAt)
                .ThenBy(r => r.Id, StringComparer.Ordinal)
                .Select(Row)
                .ToList();
        }

        static bool Contains(string text, string query) => text != null && CultureInfo.InvariantCulture.CompareInfo.IndexOf(text, query, CompareOptions.IgnoreCase) >= 0;

        static HistoryRow Row(SessionInfo info)
        {
            var discarded = info.Phase == Known.SessionInfo.Discarded;
            var merged = info.Phase == Known.SessionInfo.Merged;
            return new HistoryRow
            {
                Id = info.Id,
                Title = Words.OneLine(string.IsNullOrWhiteSpace(info.Title) ? info.Prompt : info.Title, 120),
                Status = info.Status,
                Phase = info.Phase,
                Agent = info.Agent,
                CreatedAt = info.CreatedAt,
                PendingPrompts = info.PendingPrompts,
                CanOpen = true,
                CanRename = true,
                // A merged or discarded session has nothing left to discard; a discarded one is restored.
                CanDiscard = !discarded && !merged,
                CanRestore = discarded,
            };
        }

        /// `session/rename`: control characters dropped, cut to 80 characters at a character
        /// boundary (codiva does the same; an empty title goes back to the prompt's line).
        public static RenameParams Rename(string sessionId, string title)
        {
            var clean = new string((title ?? "").Where(c => Words.Shown(c) || c == ' ').ToArray()).Trim();
            if (clean.Length > MaxTitle)
            {
                var keep = MaxTitle;
                if (char.IsHighSurrogate(clean[keep - 1])) keep--;
                clean = clean.Substring(0, keep);
            }
            return new RenameParams { SessionId = sessionId, Title = clean };
        }

        /// `session/restore` of a discarded row (null for another).
        public static SessionParams Restore(HistoryRow row) => row.CanRestore ? new SessionParams { SessionId = row.Id } : null;
    }

    public enum DiscardStage { Idle, Previewing, Confirming, Confirmed, Done, Failed }

    /// A discard in its two steps: the preview (what would go; all of it is archived), then the
    /// confirmation naming the preview's token. A session that changed after its preview is
    /// refused with a fresh preview and token (`changed_since_preview`, `token_mismatch`): the
    /// flow shows that one and confirms only it.
    public sealed class DiscardFlow
    {
        public readonly string SessionId;
        public DiscardStage Stage { get; private set; } = DiscardStage.Idle;
        public DiscardPreview Preview { get; private set; }
        public string Token { get; private set; }
        /// The preview was replaced by a fresh one after a refusal.
        public bool Changed { get; private set; }
        public string Error { get; private set; }

        public DiscardFlow(string sessionId) { SessionId = sessionId; }

        /// The preview request (no token: nothing happens yet).
        public ConfirmParams Begin()
        {
            Stage = DiscardStage.Previewing;
            Preview = null;
            Token = null;
            Changed = false;
            Error = null;
            return new ConfirmParams { SessionId = SessionId };
        }

        /// The confirmation of the preview shown (null while none is).
        public ConfirmParams Confirm()
        {
            if (Stage != DiscardStage.Confirming || Token == null) return null;
            Stage = DiscardStage.Confirmed;
            return new ConfirmParams { SessionId = SessionId, ConfirmToken = Token };
        }

        /// Takes `session/discard`'s answer.
        public void Answered(DiscardOutcome outcome)
        {
            switch (outcome?.Outcome)
            {
                case Known.DiscardOutcome.NeedsConfirmation:
                    Preview = outcome.Preview ?? new DiscardPreview { Uncommitted = new List<string>(), UnmergedCommits = new List<string>() };
                    Token = outcome.ConfirmToken;
                    Stage = Token == null ? DiscardStage.Failed : DiscardStage.Confirming;
                    break;
                case Known.DiscardOutcome.Discarded:
                case Known.DiscardOutcome.Removed:
                    Stage = DiscardStage.Done;
                    break;
                default:
                    Stage = DiscardStage.Failed;
                    Error = "unexpected outcome: " + Words.OneLine(outcome?.Outcome, 40);
                    break;
            }
        }

        /// Takes a refusal: a changed session brings its fresh preview and token (to confirm
        /// again, or leave); any other reason ends the flow with the message.
        public void Refused(RpcException error)
        {
            var reason = error?.Reason;
            if (reason == Known.RefusalCode.ChangedSincePreview || reason == Known.RefusalCode.TokenMismatch)
            {
                var token = JsonRead.Str(error.ErrorData, "confirm_token");
                var preview = Wire.FromJson<DiscardPreview>(JsonRead.Get(error.ErrorData, "preview"));
                if (token != null && preview != null)
                {
                    Preview = preview;
                    Token = token;
                    Changed = true;
                    Stage = DiscardStage.Confirming;
                    return;
                }
            }
            Stage = DiscardStage.Failed;
            Error = Words.OneLine(error?.Message, 300);
        }

        /// What the confirmation asks (with "changed since the preview" first when it did).
        public string Question(Language language)
        {
            if (Preview == null) return "";
            var ask = Strings.Format(Str.DiscardPreview, language, Preview.Uncommitted?.Count ?? 0, Preview.UnmergedCommits?.Count ?? 0);
            return Changed ? Strings.Get(Str.DiscardChanged, language) + "\n" + ask : ask;
        }
    }
}
