// The client's copy of the manager's state: session rows from `manager/snapshot` plus the
// events after it, applied in `seq` order (a gap is reported, never papered over), and each
// session's view (SessionView): its `session/snapshot` plus its events after it, folded by the
// protocol's rules. Used on the dispatcher's thread only.
using System;
using System.Collections.Generic;
using Codiva.Protocol;

namespace Codiva.Client
{
    public enum Applied { Applied, Duplicate, Gap }

    public sealed class SessionStore
    {
        readonly Dictionary<string, SessionView> sessions = new Dictionary<string, SessionView>();
        readonly List<string> order = new List<string>();
        readonly Dictionary<string, AgentCapabilities> agents = new Dictionary<string, AgentCapabilities>();

        /// The `seq` of the last event applied.
        public long LastSeq { get; private set; }
        /// The `seq` of the last `manager/snapshot` taken (events after it follow from + 1).
        public long SnapshotSeq { get; private set; }
        /// How many events were applied in order (for tests and diagnostics).
        public long AppliedCount { get; private set; }
        /// How many gaps were found (each one leads to a resync).
        public int Gaps { get; private set; }
        public string Base { get; private set; }

        /// A session (its id) or the list (null) changed.
        public event Action<string> Changed;
        /// Only a session's streamed text changed (often: many times a second while it writes).
        public event Action<string> StreamChanged;
        public event Action<string> Warning;

        public IReadOnlyList<string> Order => order;
        public SessionView this[string id] { get { SessionView view; return sessions.TryGetValue(id, out view) ? view : null; } }

        /// Prompts waiting for the user, over every session (the panel's inbox count): the rows'
        /// `pending_prompts`, which the manager keeps exact for every session, loaded or not.
        public long InboxCount
        {
            get
            {
                long count = 0;
                foreach (var view in sessions.Values) count += view.Row != null ? view.Row.PendingPrompts : view.Prompts.Count;
                return count;
            }
        }

        /// Takes `agents/list`: what each agent can do (which MCP actions the panel offers).
        public void SetAgents(IEnumerable<AgentAvailability> list)
        {
            agents.Clear();
            foreach (var agent in list)
                if (agent?.Id != null && agent.Capabilities != null) agents[agent.Id] = agent.Capabilities;
            Changed?.Invoke(null);
        }

        /// What the agent of session `id` can do (null until `agents/list` answered).
        public AgentCapabilities CapabilitiesOf(string id)
        {
            var agent = this[id]?.Row?.Agent;
            AgentCapabilities capabilities;
            return agent != null && agents.TryGetValue(agent, out capabilities) ? capabilities : null;
        }

        /// Session `id`'s MCP servers as the panel lists them (none when it has none).
        public List<McpLine> McpOf(string id) => Presentation.McpLines(this[id]?.Row?.McpServers, CapabilitiesOf(id));

        /// Takes a `manager/snapshot` as the rows (the sessions' views are kept until their own
        /// snapshots are read again).
        public void Reset(ManagerSnapshot snapshot)
        {
            var seen = new HashSet<string>();
            foreach (var row in snapshot.Sessions)
            {
                seen.Add(row.Id);
                View(row.Id).Row = row;
            }
            foreach (var id in new List<string>(order))
                if (!seen.Contains(id)) Remove(id);
            LastSeq = snapshot.Seq;
            SnapshotSeq = snapshot.Seq;
            Changed?.Invoke(null);
        }

        /// Takes a `session/snapshot` as the session's whole view (its row stays the manager's).
        public void Load(string id, SessionSnapshot snapshot)
        {
            View(id).Load(snapshot);
            Changed?.Invoke(id);
        }

        /// Applies one notification: in order (seq = last + 1), a duplicate (ignored), or a gap
        /// (not applied: the caller resyncs). Events without seq are applied as they come.
        public Applied Apply(Sequenced ev)
        {
            var seq = ev.SeqOrZero;
            if (seq != 0)
            {
                if (seq <= LastSeq) return Applied.Duplicate;
                if (seq > LastSeq + 1)
                {
                    Gaps++;
                    return Applied.Gap;
                }
                LastSeq = seq;
                AppliedCount++;
            }
            Handle(ev);
            return Applied.Applied;
        }

        void Handle(Sequenced ev)
        {
            if (ev is SessionUpdatedEvent updated)
            {
                View(updated.Session.Id).Row = updated.Session;
                Changed?.Invoke(updated.Session.Id);
            }
            else if (ev is SessionRemovedEvent removed)
            {
                Remove(removed.SessionId);
                Changed?.Invoke(null);
            }
            else if (ev is BaseEvent baseEvent)
            {
                Base = baseEvent.Base;
                Changed?.Invoke(null);
            }
            else if (ev is WarningEvent warning) Warning?.Invoke(warning.Message);
            else if (ev is SessionEvent sessionEvent && sessionEvent.SessionId != null)
            {
                View(sessionEvent.SessionId).Apply(sessionEvent);
                if (sessionEvent is StreamEvent) StreamChanged?.Invoke(sessionEvent.SessionId);
                else Changed?.Invoke(sessionEvent.SessionId);
            }
        }

        SessionView View(string id)
        {
            SessionView view;
            if (sessions.TryGetValue(id, out view)) return view;
            view = new SessionView();
            sessions[id] = view;
            order.Add(id);
            return view;
        }

        void Remove(string id)
        {
            sessions.Remove(id);
            order.Remove(id);
        }
    }
}
