// A group of attempts side by side (`group/compare`, docs/serve-api.md): per attempt its agent
// and model, status, files changed, lines +/−, commits, check, duration, tokens and cost — what
// the git layer and the sessions' own usage report, nothing estimated (a figure nobody reported
// is absent, never 0). The group itself comes through SessionStore.Groups; this is its figures.
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading.Tasks;
using Codiva.Client;
using Codiva.Protocol;
using Codiva.Rpc;

namespace Codiva.Panel
{
    /// One attempt's figures, plain.
    public sealed class AttemptColumn
    {
        public string SessionId;
        /// `agent` or `agent/model`: the model asked for, else the one the agent reported.
        public string Name;
        public string Status;
        public string Phase;
        /// Null: no worktree to read (discarded, merged, preparing) or git failed (`GitError`).
        public long? Files, Insertions, Deletions, Commits, Uncommitted;
        public string GitError;
        /// The check's state (`passed`, …), null when none ran.
        public string Check;
        public long DurationMs;
        /// Input and output tokens the agent reported; null when it reported none.
        public long? Tokens;
        public double? CostUsd;
        public bool Kept;

        /// `<b>claude/sonnet</b>  completed · files 2 +14 −3 · commits 1 · ✓ check passed · 1m 02s · tokens 12.4k · $0.12`.
        public string Rich(Language language)
        {
            var parts = new List<string> { Kept ? Strings.Get(Str.CompareKept, language) : Words.OneLine(Status, 40) };
            if (Files.HasValue)
            {
                parts.Add(Strings.Format(Str.CompareWork, language, Files.Value, Insertions ?? 0, Deletions ?? 0));
                parts.Add(Strings.Format(Str.CompareCommits, language, Commits ?? 0));
            }
            else parts.Add(GitError != null ? Words.OneLine(GitError, 120) : Strings.Get(Str.CompareNoWork, language));
            parts.Add(AttemptsCompare.CheckWords(Check, language));
            parts.Add(Words.Duration(DurationMs, language));
            if (Tokens.HasValue) parts.Add(Strings.Format(Str.CompareTokens, language, Words.Tokens(Tokens.Value)));
            if (CostUsd.HasValue) parts.Add("$" + CostUsd.Value.ToString("0.00", CultureInfo.InvariantCulture));
            return "<b>" + RichText.Escape(Name) + "</b>  " + RichText.Escape(string.Join(" · ", parts));
        }
    }

    public static class AttemptsCompare
    {
        /// `group/compare`'s params for the group of `groupId` (SessionStore.Groups' keys).
        public static GroupParams Of(string groupId) => new GroupParams { GroupId = groupId };

        /// The group's heading (rich text): its instruction (the user's text, one line).
        public static string Heading(GroupCompare compare, Language language) =>
            "<b>" + RichText.Escape(Strings.Format(Str.CompareTitle, language, Words.OneLine(compare?.Group?.Instruction, 120))) + "</b>";

        /// One column per attempt, in the group's order.
        public static List<AttemptColumn> Columns(GroupCompare compare) =>
            (compare?.Attempts ?? new List<AttemptFigures>()).Where(a => a?.Session != null).Select(a => Column(a, compare.Group?.Kept)).ToList();

        static AttemptColumn Column(AttemptFigures figures, string kept)
        {
            var row = figures.Session;
            var agent = figures.Spec?.Agent ?? row.Agent;
            var model = !string.IsNullOrEmpty(figures.Spec?.Model) ? figures.Spec.Model : row.Model;
            var work = figures.Work;
            return new AttemptColumn
            {
                SessionId = row.Id,
                Name = Words.OneLine(string.IsNullOrEmpty(model) ? agent : agent + "/" + model, 60),
                Status = row.Status,
                Phase = row.Phase,
                Files = work?.Files?.Count,
                Insertions = work?.Insertions,
                Deletions = work?.Deletions,
                Commits = work?.Commits,
                Uncommitted = work?.Uncommitted,
                GitError = figures.GitError,
                Check = row.Check?.State,
                DurationMs = figures.DurationMs,
                Tokens = figures.Tokens == null ? (long?)null : figures.Tokens.Input + figures.Tokens.Output,
                CostUsd = row.CostUsd,
                Kept = kept != null && kept == row.Id,
            };
        }

        /// A check's state in words (a later version's state: as it came, one line).
        public static string CheckWords(string state, Language language)
        {
            switch (state)
            {
                case null: return Strings.Get(Str.CheckNone, language);
                case Known.CheckState.Passed: return Strings.Get(Str.CheckPassed, language);
                case Known.CheckState.Failed: return Strings.Get(Str.CheckFailed, language);
                case Known.CheckState.Running: return Strings.Get(Str.CheckRunning, language);
                case Known.CheckState.TimedOut: return Strings.Get(Str.CheckTimedOut, language);
                case Known.CheckState.Error: return Strings.Get(Str.CheckError, language);
                default: return Words.OneLine(state, 40);
            }
        }

        /// `group/compare` through the client; `done` gets the answer on the dispatcher's thread.
        public static Task<GroupCompare> Load(CodivaClient client, string groupId, System.Action<GroupCompare> done, System.Action<RpcException> failed = null) =>
            client.Request(Methods.GroupCompare, Of(groupId), done, failed);
    }
}
