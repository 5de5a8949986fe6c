// The client's copy of the manager's state: session rows from `manager/snapshot` plus the
// events after it, applied in `seq` order (a gap is reported, never papered over), and each
// session's view (SessionView): its `session/snapshot` plus its events after it, folded by the
// protocol's rules. A snapshot is placed by its `seq` (docs/serve-api.md, "Which events a
// snapshot holds"): from the moment it is asked for (`BeginLoad`) the session's events are
// applied live and kept; its answer becomes the view with exactly the kept events after its
// place applied over it, and an event it holds that is read after it is not applied again.
// Used on the dispatcher's thread only.
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
        /// Sessions whose snapshot is on its way: the events applied since it was asked for.
        readonly Dictionary<string, Placement> placing = new Dictionary<string, Placement>();

        /// The `seq` of the last event applied.
        public long LastSeq { get; private set; }
        /// The `seq` of the last `manager/snapshot` taken (events after it follow from + 1).
        public long SnapshotSeq { get; private set; }
        /// How many events were applied in order (for tests and diagnostics).
        public long AppliedCount { get; private set; }
        /// How many gaps were found (each one leads to a resync).
        public int Gaps { get; private set; }
        public string Base { get; private set; }
        readonly Dictionary<string, GroupInfo> groups = new Dictionary<string, GroupInfo>();
        /// The groups of attempts (`manager/snapshot`'s `groups`, then `group/updated` and
        /// `group/removed`), by id. The panel starts none (its sessions run in place, one at a
        /// time); a group started from another client is known here.
        public IReadOnlyDictionary<string, GroupInfo> Groups => groups;

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
            Agents = new List<AgentAvailability>(list ?? new AgentAvailability[0]);
            agents.Clear();
            foreach (var agent in Agents)
                if (agent?.Id != null && agent.Capabilities != null) agents[agent.Id] = agent.Capabilities;
            Changed?.Invoke(null);
        }

        /// `agents/list`'s answer as it came (empty until it answered): the panel's pickers and login.
        public IReadOnlyList<AgentAvailability> Agents { get; private set; } = new List<AgentAvailability>();

        /// The agent `id` of `agents/list` (null: not listed).
        public AgentAvailability AgentNamed(string id)
        {
            foreach (var agent in Agents) if (agent?.Id == id) return agent;
            return null;
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
            groups.Clear();
            foreach (var group in snapshot.Groups ?? new List<GroupInfo>())
                if (group?.Id != null) groups[group.Id] = group;
            // A stream behind the last event is a new one (the daemon started again).
            if (snapshot.Seq < LastSeq) NewStream();
            LastSeq = snapshot.Seq;
            SnapshotSeq = snapshot.Seq;
            Changed?.Invoke(null);
        }

        /// A new connection: its stream may be another daemon's, whose `seq`s do not compare
        /// with those seen so far. The places of the snapshots taken so far and the events kept
        /// for those on their way are forgotten (a request of the old connection still ends
        /// with its failure; one of the new one is begun after this).
        public void NewStream()
        {
            foreach (var view in sessions.Values) view.ForgetPlace();
            foreach (var placement in placing.Values) placement.Kept.Clear();
        }

        /// A `session/snapshot` of session `id` is about to be asked for: call it before the
        /// request is sent. The session's events applied from now on are kept until the answer
        /// is given to the returned request (`Load`) or it failed (`Fail`); one of the two must
        /// follow, once.
        public SnapshotRequest BeginLoad(string id)
        {
            Placement placement;
            if (!placing.TryGetValue(id, out placement))
            {
                placement = new Placement();
                placing[id] = placement;
            }
            placement.Asked++;
            return new SnapshotRequest(this, id, placement);
        }

        /// Takes a `session/snapshot` that was asked for when none of the session's events could
        /// be on the way (a test's starting view): as `BeginLoad(id).Load(snapshot)`.
        public void Load(string id, SessionSnapshot snapshot) => BeginLoad(id).Load(snapshot);

        /// The answer to `request`: the snapshot is the session's whole view (its row stays the
        /// manager's), then the events kept since it was asked for that it does not hold are
        /// applied over it — those after its `seq`; without `seq` (an older server) every one
        /// but `stream` deltas, which are the only ones not harmless twice. An event without
        /// `seq` has no known place: it is treated as under a snapshot without one.
        internal void Place(SnapshotRequest request, SessionSnapshot snapshot)
        {
            // The session was removed while its snapshot was on the way: nothing to show.
            if (!Ended(request)) return;
            var view = View(request.SessionId);
            view.Load(snapshot);
            foreach (var ev in request.Placement.Kept)
            {
                var after = snapshot.Seq.HasValue && ev.Seq > 0
                    ? ev.Seq > snapshot.Seq.Value
                    : ev.Event != Known.SessionEventParams.Stream;
                if (after) view.Apply(ev);
            }
            Changed?.Invoke(request.SessionId);
        }

        internal void Failed(SnapshotRequest request) => Ended(request);

        /// Counts `request` answered; false when its session was removed since it was asked.
        bool Ended(SnapshotRequest request)
        {
            Placement current;
            if (!placing.TryGetValue(request.SessionId, out current) || current != request.Placement) return false;
            if (--current.Asked == 0) placing.Remove(request.SessionId);
            return true;
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
            if (ev is SessionUpdatedParams updated)
            {
                View(updated.Session.Id).Row = updated.Session;
                Changed?.Invoke(updated.Session.Id);
            }
            else if (ev is SessionRemovedParams removed)
            {
                Remove(removed.SessionId);
                Changed?.Invoke(null);
            }
            else if (ev is BaseParams baseEvent)
            {
                Base = baseEvent.Base;
                Changed?.Invoke(null);
            }
            else if (ev is GroupUpdatedParams groupUpdated)
            {
                if (groupUpdated.Group?.Id != null) groups[groupUpdated.Group.Id] = groupUpdated.Group;
                Changed?.Invoke(null);
            }
            else if (ev is GroupRemovedParams groupRemoved)
            {
                if (groupRemoved.GroupId != null) groups.Remove(groupRemoved.GroupId);
                Changed?.Invoke(null);
            }
            else if (ev is WarningParams warning) Warning?.Invoke(warning.Message);
            else if (ev is SessionEventParams sessionEvent && sessionEvent.SessionId != null)
            {
                var view = View(sessionEvent.SessionId);
                Placement placement;
                if (placing.TryGetValue(sessionEvent.SessionId, out placement)) placement.Kept.Add(sessionEvent);
                // Read after the snapshot that holds it (the answer and the notifications are
                // written by different tasks of the server): applied once already.
                if (view.Holds(sessionEvent)) return;
                view.Apply(sessionEvent);
                if (sessionEvent.Event == Known.SessionEventParams.Stream) StreamChanged?.Invoke(sessionEvent.SessionId);
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
            placing.Remove(id);
        }

        /// The snapshots of one session on their way (how many) and its events applied since the
        /// first was asked for.
        internal sealed class Placement
        {
            public int Asked;
            public readonly List<SessionEventParams> Kept = new List<SessionEventParams>();
        }
    }

    /// A `session/snapshot` asked for (`SessionStore.BeginLoad`): its answer or its failure is
    /// given here, once, on the dispatcher's thread.
    public sealed class SnapshotRequest
    {
        readonly SessionStore store;
        internal readonly SessionStore.Placement Placement;
        public readonly string SessionId;
        bool ended;

        internal SnapshotRequest(SessionStore store, string sessionId, SessionStore.Placement placement)
        {
            this.store = store;
            SessionId = sessionId;
            Placement = placement;
        }

        /// The answer: the session's view becomes the snapshot, with the events after it.
        public void Load(SessionSnapshot snapshot)
        {
            End();
            store.Place(this, snapshot);
        }

        /// No answer (refused, or the connection was lost): the events are no longer kept for it.
        public void Fail()
        {
            End();
            store.Failed(this);
        }

        void End()
        {
            if (ended) throw new InvalidOperationException("the snapshot of " + SessionId + " was answered already");
            ended = true;
        }
    }
}
