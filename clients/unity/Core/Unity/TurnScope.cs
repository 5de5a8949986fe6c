// One agent turn, as the Unity Editor should feel it: one Undo step for everything the agent did
// in Unity during the turn, no asset import while it works (a script it writes would recompile
// the project, and reload this panel, in the middle of the turn), one refresh at its end, and a
// note of what ran that Undo cannot revert (a shell command, a file written, a script committed).
//
// The turn comes from the store: a panel session's status entering `running` /
// `awaiting_permission` / `awaiting_answer` opens it, a settled status (`completed`,
// `interrupted`, `failed`, `rate_limited`, `needs_login`) or the session's removal closes it;
// `starting`, `queued` (neither working nor settled) and a status this version does not know
// change nothing. Unity is behind
// `IUndo` and `IAssetRefresh` (the Editor's are `Editor/UnityTurnBindings.cs`); which tool did
// what is `IToolEffects` (the Ops tools' own, `Ops/ToolEffects.cs`, over Core's reading of the
// agent's built-in tools here).
using System;
using System.Collections.Generic;
using System.Text;
using Codiva.Client;
using Codiva.Panel;
using Codiva.Protocol;

namespace Codiva.Unity
{
    /// Unity's Undo, as far as a turn needs it.
    public interface IUndo
    {
        /// Starts a new Undo group named `name` and returns its index (`Undo.IncrementCurrentGroup`,
        /// `Undo.SetCurrentGroupName`, `Undo.GetCurrentGroup`).
        int Begin(string name);
        /// Collapses every group from `group` on into one step named `name`
        /// (`Undo.SetCurrentGroupName`, `Undo.CollapseUndoOperations`).
        void Collapse(int group, string name);
    }

    /// The Asset Database's automatic import.
    public interface IAssetRefresh
    {
        /// `AssetDatabase.DisallowAutoRefresh` (counted by Unity: each needs its Allow).
        void Disallow();
        /// `AssetDatabase.AllowAutoRefresh`.
        void Allow();
        /// `AssetDatabase.Refresh`: imports what changed on disk.
        void Refresh();
    }

    public enum ToolEffect
    {
        /// Reads, searches, asks: nothing to revert.
        None,
        /// Recorded in Unity's Undo (an Ops tool that registers its changes).
        Undoable,
        /// Changes Undo does not revert: named in the turn-end note.
        OutsideUndo,
    }

    /// What a tool call did, for the turn-end note.
    public interface IToolEffects
    {
        /// The effect of a tool the agent's own words do not settle (an MCP tool), or null to
        /// let Core's reading of the entry decide.
        ToolEffect? Of(LogEntry tool);
    }

    /// The note shown when a turn ends: what ran that Undo does not revert, in order, each once.
    public sealed class TurnNote
    {
        public string SessionId;
        /// One line each (`Bash: rm -rf Temp/cache`), already one-line and capped.
        public readonly List<string> OutsideUndo = new List<string>();
        /// How many lines were left out past `TurnScope.MaxNoteLines`.
        public int More;
        public bool IsEmpty => OutsideUndo.Count == 0;

        /// The note as a label shows it (null when there is nothing to say): the heading, then a
        /// line per item, every outside word through the chokepoint.
        public string Rich(Language language)
        {
            if (IsEmpty) return null;
            var rich = new StringBuilder("<b>").Append(RichText.Escape(Strings.Get(Str.UndoNote, language))).Append("</b>");
            foreach (var line in OutsideUndo) rich.Append("\n• ").Append(RichText.Escape(line));
            if (More > 0) rich.Append("\n").Append(RichText.Escape(Strings.Format(Str.UndoNoteMore, language, More)));
            return rich.ToString();
        }
    }

    public sealed class TurnScope : IDisposable
    {
        public const string UndoName = "codiva: agent turn";
        public const int MaxNoteLines = 10;
        public const int MaxLineChars = 120;

        readonly SessionStore store;
        readonly IUndo undo;
        readonly IAssetRefresh refresh;
        readonly IToolEffects effects;
        readonly Func<SessionView, bool> isPanelSession;
        readonly Action<string> load;
        // Panel sessions whose snapshot was asked for (`load`).
        readonly HashSet<string> loading = new HashSet<string>();
        // The sessions in a turn: the last log entry id before the turn began.
        readonly Dictionary<string, long> open = new Dictionary<string, long>();
        int group = -1;
        bool disposed;

        /// A turn ended: its note (possibly empty). Raised after the Undo collapse and the refresh.
        public event Action<TurnNote> TurnEnded;

        /// `load`: asks for a session's snapshot (`CodivaClient.Watch`), called once for each panel
        /// session whose view is not loaded — a row alone does not say where its turn is (after a
        /// domain reload, say), and the note needs the log.
        public TurnScope(SessionStore store, IUndo undo, IAssetRefresh refresh, IToolEffects effects, Func<SessionView, bool> isPanelSession, Action<string> load = null)
        {
            this.store = store;
            this.undo = undo;
            this.refresh = refresh;
            this.effects = effects;
            this.isPanelSession = isPanelSession;
            this.load = load;
            store.Changed += OnChanged;
            OnChanged(null);
        }

        /// Sessions the panel created: in place, in the project's directory.
        public static Func<SessionView, bool> InPlaceIn(string projectDir)
        {
            var dir = Normal(projectDir);
            return view => view?.Row != null && view.Row.InPlace == true && Normal(view.Row.Worktree) == dir;
        }

        static string Normal(string path) => (path ?? "").Replace('\\', '/').TrimEnd('/');

        /// Whether a turn is open (the Undo group open, auto refresh held).
        public bool InTurn => open.Count > 0;

        /// `status` opens a turn (true), settles one (false), or neither (null: nothing changes).
        public static bool? IsTurn(string status)
        {
            switch (status)
            {
                case Known.Status.Running:
                case Known.Status.AwaitingPermission:
                case Known.Status.AwaitingAnswer:
                    return true;
                case Known.Status.Completed:
                case Known.Status.Interrupted:
                case Known.Status.RateLimited:
                case Known.Status.NeedsLogin:
                case Known.Status.Failed:
                    return false;
                default:
                    // `starting` and `queued` are neither working nor settled; a later version's
                    // word is not known.
                    return null;
            }
        }

        void OnChanged(string id)
        {
            if (disposed) return;
            if (id != null) { Check(id); return; }
            var ids = new HashSet<string>(store.Order);
            ids.UnionWith(open.Keys);
            foreach (var each in ids) Check(each);
        }

        void Check(string id)
        {
            var view = store[id];
            var panel = view != null && isPanelSession(view);
            if (panel && !view.LogLoaded && load != null && loading.Add(id)) load(id);
            if (view == null) loading.Remove(id);
            var turn = panel ? IsTurn(view.Status) : false;
            if (turn == null) return;
            if (turn.Value && !open.ContainsKey(id)) Open(id, view);
            else if (!turn.Value && open.ContainsKey(id)) Close(id, view);
        }

        void Open(string id, SessionView view)
        {
            open[id] = view.Log.Count == 0 ? -1 : view.Log[view.Log.Count - 1].Id;
            if (open.Count > 1) return;
            group = undo.Begin(UndoName);
            refresh.Disallow();
        }

        void Close(string id, SessionView view)
        {
            var after = open[id];
            open.Remove(id);
            var note = Note(id, view, after);
            if (open.Count == 0) End();
            TurnEnded?.Invoke(note);
        }

        void End()
        {
            undo.Collapse(group, UndoName);
            group = -1;
            refresh.Allow();
            refresh.Refresh();
        }

        /// The note of a turn: the session's tool calls after entry `after` that ran (not denied)
        /// and changed something Undo does not revert.
        public TurnNote Note(string id, SessionView view, long after)
        {
            var note = new TurnNote { SessionId = id };
            if (view == null) return note;
            var seen = new HashSet<string>();
            foreach (var entry in view.Log)
            {
                if (entry.Id <= after || entry.Kind != Known.LogEntry.Tool || entry.Status == Known.ToolStatus.Denied) continue;
                if ((effects?.Of(entry) ?? Effect(entry)) != ToolEffect.OutsideUndo) continue;
                var line = Line(entry);
                if (!seen.Add(line)) continue;
                if (note.OutsideUndo.Count < MaxNoteLines) note.OutsideUndo.Add(line);
                else note.More++;
            }
            return note;
        }

        /// Core's reading of an agent's tool by its kind: commands, edits and subagents change
        /// what Undo does not see; reads, searches, fetches, thinking, todos and questions change
        /// nothing; any other tool (an MCP tool no `IToolEffects` knows) is named, to be safe.
        public static ToolEffect Effect(LogEntry entry)
        {
            switch (Known.ToolKind.KnownOr(entry.ToolKind, Known.ToolKind.Other))
            {
                case Known.ToolKind.Read:
                case Known.ToolKind.Search:
                case Known.ToolKind.Fetch:
                case Known.ToolKind.Think:
                case Known.ToolKind.Todo:
                case Known.ToolKind.Question:
                    return ToolEffect.None;
                default:
                    return ToolEffect.OutsideUndo;
            }
        }

        /// `Title: summary`, one line, at most `MaxLineChars` characters (cut at a character
        /// boundary, `…` added).
        public static string Line(LogEntry entry)
        {
            var title = string.IsNullOrEmpty(entry.Title) ? entry.Name : entry.Title;
            var text = string.IsNullOrEmpty(entry.Summary) ? title : title + ": " + entry.Summary;
            return OneLine(text ?? "tool", MaxLineChars);
        }

        /// Control and format characters become spaces (a line break cannot forge a second line,
        /// a bidi override cannot reorder it); at most `max` characters, never half a pair.
        public static string OneLine(string text, int max)
        {
            var line = new StringBuilder(Math.Min(text.Length, max + 1));
            var count = 0;
            for (var i = 0; i < text.Length; i++)
            {
                var c = text[i];
                if (count == max) { line.Append('…'); break; }
                var category = char.GetUnicodeCategory(c);
                if (char.IsControl(c) || category == System.Globalization.UnicodeCategory.Format
                    || category == System.Globalization.UnicodeCategory.LineSeparator
                    || category == System.Globalization.UnicodeCategory.ParagraphSeparator) { line.Append(' '); count++; continue; }
                if (char.IsHighSurrogate(c))
                {
                    if (i + 1 < text.Length && char.IsLowSurrogate(text[i + 1])) { line.Append(c).Append(text[++i]); count++; continue; }
                    line.Append('\uFFFD'); count++; continue;
                }
                if (char.IsLowSurrogate(c)) { line.Append('\uFFFD'); count++; continue; }
                line.Append(c);
                count++;
            }
            return line.ToString();
        }

        /// Stops watching the store; an open turn is closed (its Undo group collapsed, auto refresh
        /// allowed again) so nothing is left held — before a domain reload, say. No refresh is
        /// started then: the reload is Unity's own, and it imports what changed.
        public void Dispose()
        {
            if (disposed) return;
            disposed = true;
            store.Changed -= OnChanged;
            if (open.Count > 0)
            {
                open.Clear();
                undo.Collapse(group, UndoName);
                group = -1;
                refresh.Allow();
            }
        }
    }
}
