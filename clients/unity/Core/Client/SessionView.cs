// What the client knows about one session: the fold of its events over a `session/snapshot`,
// by the rules of docs/serve-api.md ("What a client knows about a session"; the definition is
// codiva_protocol::view, SessionSnapshot::apply). A client that loads a snapshot and applies
// the events after it knows what one that watched from the start knows; the conformance test
// holds this fold to captured sessions (docs/conformance/session). Next to it, the session's
// row, which is the manager's (`manager/snapshot` and `session/updated`), not this fold's.
using System.Collections.Generic;
using Codiva.Protocol;

namespace Codiva.Client
{
    public sealed class SessionView
    {
        /// The session's row, as the manager last said (null until a snapshot or an update).
        public SessionInfo Row;
        /// A `session/snapshot` was taken as this view.
        public bool LogLoaded;
        /// The `seq` of the snapshot last taken as this view: the session's events up to it are
        /// in the view already (null: no snapshot, or one that did not say its place).
        public long? LoadedAt { get; private set; }

        // The fold: a `session/snapshot`'s fields. A session no event has touched is starting,
        // not connected, with everything else empty.
        public string Status = "starting";
        public string Detail;
        public NoteCode DetailCode;
        public bool Connected;
        /// The agent's own session id (what its resume takes).
        public string AgentSessionId;
        public string Model;
        /// The entry of the agent's model catalog that `Model` is (what a model picker marks).
        public string ModelEntry;
        public string PermissionMode;
        /// Open permission requests and questions, oldest first.
        public readonly List<Prompt> Prompts = new List<Prompt>();
        public TodoProgress Todos = new TodoProgress();
        public List<TodoItem> TodoItems = new List<TodoItem>();
        public UsageView Usage = new UsageView();
        /// In `tool_use_id` order.
        public readonly List<SubagentView> Subagents = new List<SubagentView>();
        /// The main log, in id order (a subagent's log is read with `session/read`).
        public readonly List<LogEntry> Log = new List<LogEntry>();
        /// How many of the oldest entries the daemon dropped to keep within its budget.
        public long DroppedEntries;
        /// The text of the message being written.
        public string Streaming = "";
        /// What the agent said about itself when it connected; null before its handshake.
        public AgentInfo Agent;

        public Prompt FindPrompt(string requestId) => Prompts.Find(p => p.RequestId == requestId);

        /// The log entry of `id`, or null.
        public LogEntry FindEntry(long id)
        {
            var at = IndexOfEntry(id);
            return at >= 0 ? Log[at] : null;
        }

        /// Takes a `session/snapshot` as the whole view.
        public void Load(SessionSnapshot snapshot)
        {
            Status = snapshot.Status;
            Detail = snapshot.Detail;
            DetailCode = snapshot.DetailCode;
            Connected = snapshot.Connected;
            AgentSessionId = snapshot.AgentSessionId;
            Model = snapshot.Model;
            ModelEntry = snapshot.ModelEntry;
            PermissionMode = snapshot.PermissionMode;
            Prompts.Clear();
            if (snapshot.Prompts != null) Prompts.AddRange(snapshot.Prompts);
            Todos = snapshot.Todos ?? new TodoProgress();
            TodoItems = snapshot.TodoItems ?? new List<TodoItem>();
            Usage = snapshot.Usage ?? new UsageView();
            Subagents.Clear();
            if (snapshot.Subagents != null) Subagents.AddRange(snapshot.Subagents);
            Log.Clear();
            if (snapshot.Log != null) Log.AddRange(snapshot.Log);
            DroppedEntries = snapshot.DroppedEntries;
            Streaming = snapshot.Streaming ?? "";
            Agent = snapshot.Agent;
            LogLoaded = true;
            LoadedAt = snapshot.Seq;
        }

        /// Whether `ev` is in the view already: the snapshot it was loaded from holds it (its
        /// `seq` is not past the snapshot's). An event without `seq` is never known to be.
        public bool Holds(SessionEventParams ev) => LoadedAt.HasValue && ev.Seq > 0 && ev.Seq <= LoadedAt.Value;

        /// The manager's stream started over (a new daemon): `seq`s no longer compare with the
        /// snapshot's place.
        internal void ForgetPlace() => LoadedAt = null;

        /// The view as a `session/snapshot` (the lists are copies; their items are shared).
        public SessionSnapshot ToSnapshot() => new SessionSnapshot
        {
            Status = Status,
            Detail = Detail,
            DetailCode = DetailCode,
            Connected = Connected,
            AgentSessionId = AgentSessionId,
            Model = Model,
            ModelEntry = ModelEntry,
            PermissionMode = PermissionMode,
            Prompts = new List<Prompt>(Prompts),
            Todos = Todos,
            TodoItems = new List<TodoItem>(TodoItems),
            Usage = Usage,
            Subagents = new List<SubagentView>(Subagents),
            Log = new List<LogEntry>(Log),
            DroppedEntries = DroppedEntries,
            Streaming = Streaming,
            Agent = Agent,
        };

        /// Takes one event of this session (the table of docs/serve-api.md, row by row); an event
        /// of a kind this version does not know changes nothing.
        public void Apply(SessionEventParams ev)
        {
            switch (ev.Event)
            {
                case Known.SessionEventParams.Status:
                    Status = ev.Status;
                    Detail = ev.Detail;
                    DetailCode = ev.DetailCode;
                    break;
                case Known.SessionEventParams.Connected:
                    Connected = true;
                    if (PermissionMode == null) PermissionMode = ev.Agent?.PermissionMode;
                    Agent = ev.Agent;
                    ModelEntry = CurrentEntry();
                    break;
                case Known.SessionEventParams.AgentSession:
                    AgentSessionId = ev.Id;
                    break;
                case Known.SessionEventParams.Model:
                    Model = ev.Model;
                    ModelEntry = CurrentEntry();
                    break;
                case Known.SessionEventParams.PermissionMode:
                    PermissionMode = ev.Mode;
                    break;
                case Known.SessionEventParams.Log:
                {
                    // A subagent's log is read on its own (`session/read` with its scope).
                    if (ev.Scope != null && ev.Scope != "main") return;
                    ApplyEntry(ev.Entry, ev.Update == true);
                    // Entries the daemon dropped to stay within its budget go here too, oldest first
                    // (the event says how many are gone in all).
                    var dropped = ev.Dropped ?? 0;
                    var gone = dropped - DroppedEntries;
                    if (gone > 0) Log.RemoveRange(0, (int)System.Math.Min(gone, Log.Count));
                    if (dropped > DroppedEntries) DroppedEntries = dropped;
                    break;
                }
                case Known.SessionEventParams.Stream:
                    if (ev.Reset == true) Streaming = "";
                    Streaming = TextRules.PushStream(Streaming, ev.Text ?? "");
                    break;
                case Known.SessionEventParams.PromptOpened:
                    if (ev.Prompt != null && FindPrompt(ev.Prompt.RequestId) == null) Prompts.Add(ev.Prompt);
                    break;
                case Known.SessionEventParams.PromptClosed:
                    Prompts.RemoveAll(p => p.RequestId == ev.RequestId);
                    break;
                case Known.SessionEventParams.Todos:
                    Todos = ev.Progress ?? new TodoProgress();
                    TodoItems = ev.Items ?? new List<TodoItem>();
                    break;
                case Known.SessionEventParams.Usage:
                    Usage = ev.Usage ?? new UsageView();
                    break;
                case Known.SessionEventParams.Subagent:
                    UpsertSubagent(ev.Subagent);
                    break;
                case Known.SessionEventParams.AgentExited:
                    Connected = false;
                    break;
                case Known.SessionEventParams.AgentSwitched:
                    // What the previous agent said of itself; the mode the session goes on in, if
                    // any, follows as `permission_mode`.
                    Connected = false;
                    Agent = null;
                    Model = null;
                    ModelEntry = null;
                    PermissionMode = null;
                    break;
                // `mcp_servers` changes nothing here: the row carries MCP servers.
            }
        }

        /// The catalog entry the model is, against the agent's reported models.
        string CurrentEntry() => Model == null || Agent == null ? null : Agent.CatalogEntry(Model);

        /// A new entry goes at the end; an update replaces the entry of its id (one already
        /// dropped, or never seen, is left out).
        void ApplyEntry(LogEntry entry, bool update)
        {
            if (entry == null) return;
            if (update)
            {
                var at = IndexOfEntry(entry.Id);
                if (at >= 0) Log[at] = entry;
            }
            else if (Log.Count == 0 || Log[Log.Count - 1].Id < entry.Id) Log.Add(entry);
        }

        int IndexOfEntry(long id)
        {
            int low = 0, high = Log.Count - 1;
            while (low <= high)
            {
                var mid = low + (high - low) / 2;
                var at = Log[mid].Id;
                if (at == id) return mid;
                if (at < id) low = mid + 1;
                else high = mid - 1;
            }
            return -1;
        }

        void UpsertSubagent(SubagentView subagent)
        {
            if (subagent == null) return;
            int low = 0, high = Subagents.Count - 1;
            while (low <= high)
            {
                var mid = low + (high - low) / 2;
                var order = CodePointOrder(Subagents[mid].ToolUseId, subagent.ToolUseId);
                if (order == 0) { Subagents[mid] = subagent; return; }
                if (order < 0) low = mid + 1;
                else high = mid - 1;
            }
            Subagents.Insert(low, subagent);
        }

        /// Strings in the order of their code points (as codiva orders them: by UTF-8 bytes),
        /// which is ordinal order except that a character past U+FFFF comes after every other.
        public static int CodePointOrder(string a, string b)
        {
            if (a == null || b == null) return a == null ? (b == null ? 0 : -1) : 1;
            var length = System.Math.Min(a.Length, b.Length);
            for (var i = 0; i < length; i++)
            {
                char x = a[i], y = b[i];
                if (x == y) continue;
                var xs = char.IsSurrogate(x);
                var ys = char.IsSurrogate(y);
                if (xs != ys) return xs ? 1 : -1;
                return x < y ? -1 : 1;
            }
            return a.Length.CompareTo(b.Length);
        }
    }
}
