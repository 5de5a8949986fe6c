// The codiva client: connects through a transport factory, keeps the session store in step
// with the server (snapshot + events, resync on a gap), reconnects with back-off, and offers
// the panel's requests. Nothing here blocks the caller: requests answer through callbacks
// posted to the dispatcher, and every store change happens on the dispatcher's thread.
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Codiva.Protocol;
using Codiva.Rpc;

namespace Codiva.Client
{
    public enum ConnectionState { Disconnected, Connecting, Connected, Reconnecting, Stopped }

    public sealed class CodivaClient : IDisposable
    {
        readonly ITransportFactory factory;
        readonly IDispatcher dispatcher;
        readonly Backoff backoff;
        readonly object gate = new object();
        readonly HashSet<string> watched = new HashSet<string>();
        readonly ManualResetEventSlim stopping = new ManualResetEventSlim();
        Thread connector;
        RpcConnection rpc;
        bool stopped;
        // Dispatcher-thread state: a (re)sync in flight buffers the events that arrive meanwhile.
        bool syncing;
        readonly List<Sequenced> buffered = new List<Sequenced>();

        public readonly SessionStore Store = new SessionStore();
        public ConnectionState State { get; private set; }
        public InitializeResult Server { get; private set; }
        /// How many times a connection was made (1 after the first).
        public int Connections { get; private set; }
        public event Action<ConnectionState> StateChanged;
        /// A connection or request failure worth showing (on the dispatcher's thread).
        public event Action<string> Error;
        /// Every notification as it arrived (method, params), on the connection's reader thread:
        /// for diagnostics and recording.
        public event Action<string, object> Received;

        public CodivaClient(ITransportFactory factory, IDispatcher dispatcher, Backoff backoff = null)
        {
            this.factory = factory;
            this.dispatcher = dispatcher;
            this.backoff = backoff ?? new Backoff();
        }

        /// Connects in the background (and again whenever the connection drops).
        public void Start()
        {
            lock (gate)
            {
                if (connector != null) return;
                connector = new Thread(ConnectLoop) { IsBackground = true, Name = "codiva-connect" };
                connector.Start();
            }
        }

        void SetState(ConnectionState state)
        {
            dispatcher.Post(() =>
            {
                State = state;
                StateChanged?.Invoke(state);
            });
        }

        void ConnectLoop()
        {
            var first = true;
            while (true)
            {
                lock (gate) if (stopped) return;
                SetState(first ? ConnectionState.Connecting : ConnectionState.Reconnecting);
                var closed = new ManualResetEventSlim();
                try
                {
                    var transport = factory.Open();
                    var connection = new RpcConnection(transport);
                    connection.Notification += OnNotification;
                    connection.Closed += _ => closed.Set();
                    connection.Unreadable += message => dispatcher.Post(() => Error?.Invoke("unreadable line from codiva: " + message));
                    lock (gate)
                    {
                        if (stopped) { connection.Dispose(); return; }
                        rpc = connection;
                    }
                    // Events that arrive before the snapshot's answer wait for it. The stream is a
                    // new one (the daemon may have started again).
                    var held = new ManualResetEventSlim();
                    dispatcher.Post(() => { syncing = true; Store.NewStream(); held.Set(); });
                    held.Wait();
                    connection.Start();
                    var init = connection.Call(Methods.Initialize, new NoParams()).GetAwaiter().GetResult();
                    dispatcher.Post(() => { Server = init; Connections++; });
                    Resync(connection, true);
                    backoff.Reset();
                    SetState(ConnectionState.Connected);
                    first = false;
                    closed.Wait();
                }
                catch (Exception error)
                {
                    var message = error.Message;
                    dispatcher.Post(() => Error?.Invoke(message));
                }
                lock (gate)
                {
                    rpc?.Dispose();
                    rpc = null;
                    if (stopped) return;
                }
                first = false;
                SetState(ConnectionState.Reconnecting);
                if (stopping.Wait(backoff.Next())) return;
            }
        }

        void OnNotification(string method, object parameters)
        {
            Received?.Invoke(method, parameters);
            Sequenced ev;
            try { ev = Notifications.Read(method, parameters); }
            catch (Exception error)
            {
                var message = "unreadable " + method + ": " + error.Message;
                dispatcher.Post(() => Error?.Invoke(message));
                return;
            }
            dispatcher.Post(() => Deliver(ev));
        }

        void Deliver(Sequenced ev)
        {
            if (syncing) { buffered.Add(ev); return; }
            if (Store.Apply(ev) == Applied.Gap)
            {
                buffered.Add(ev);
                RpcConnection connection;
                lock (gate) connection = rpc;
                if (connection == null) return;
                syncing = true;
                Resync(connection, false);
            }
        }

        /// `manager/snapshot`, then the buffered events after it; the watched sessions' logs are
        /// read again (their events may be among the missed ones). `syncing` is set already.
        void Resync(RpcConnection connection, bool wait)
        {
            var task = connection.Call(Methods.ManagerSnapshot, new NoParams()).ContinueWith(t =>
            {
                if (t.IsFaulted)
                {
                    var message = t.Exception.InnerException.Message;
                    dispatcher.Post(() => { syncing = false; buffered.Clear(); Error?.Invoke(message); });
                    return;
                }
                var snapshot = t.Result;
                dispatcher.Post(() =>
                {
                    Store.Reset(snapshot);
                    LoadAgents();
                    syncing = false;
                    var pending = new List<Sequenced>(buffered);
                    buffered.Clear();
                    pending.Sort((a, b) => a.SeqOrZero.CompareTo(b.SeqOrZero));
                    foreach (var ev in pending) Deliver(ev);
                    string[] ids;
                    lock (gate) ids = new List<string>(watched).ToArray();
                    foreach (var id in ids) LoadSession(connection, id);
                });
            });
            if (wait) task.GetAwaiter().GetResult();
        }

        /// Keeps a session's log and prompts loaded (now and after every resync).
        public void Watch(string sessionId)
        {
            RpcConnection connection;
            lock (gate)
            {
                watched.Add(sessionId);
                connection = rpc;
            }
            if (connection != null) LoadSession(connection, sessionId);
        }

        /// Asks for session `id`'s snapshot. The store starts keeping the session's events on the
        /// dispatcher's thread before the request goes (so every event the snapshot may not hold
        /// is kept), and is given the answer, or the failure, on it: the snapshot is placed by
        /// its `seq` among them (SessionStore.BeginLoad). The answer is posted from the reading
        /// thread as it is read, before the events on the lines after it (what a snapshot
        /// without `seq` relies on).
        void LoadSession(RpcConnection connection, string id)
        {
            dispatcher.Post(() =>
            {
                var request = Store.BeginLoad(id);
                connection.CallInOrder(Methods.SessionSnapshot, new SessionParams { SessionId = id },
                        snapshot => dispatcher.Post(() => request.Load(snapshot)))
                    .ContinueWith(t =>
                    {
                        if (t.IsFaulted && t.Exception != null) dispatcher.Post(request.Fail);
                    });
            });
        }

        /// Sends a request; `done` or `failed` runs on the dispatcher's thread.
        public Task<TResult> Request<TParams, TResult>(Method<TParams, TResult> method, TParams parameters,
            Action<TResult> done = null, Action<RpcException> failed = null)
        {
            RpcConnection connection;
            lock (gate) connection = rpc;
            var task = connection == null
                ? Task.FromException<TResult>(new RpcException(0, "not connected to codiva", null))
                : connection.Call(method, parameters);
            task.ContinueWith(t =>
            {
                if (t.IsFaulted)
                {
                    var error = t.Exception.InnerException as RpcException ?? new RpcException(-1, t.Exception.InnerException.Message, null);
                    dispatcher.Post(() => { if (failed != null) failed(error); else Error?.Invoke(error.Message); });
                }
                else if (done != null)
                {
                    var result = t.Result;
                    dispatcher.Post(() => done(result));
                }
            });
            return task;
        }

        // The panel's requests.

        public Task<SessionResult> CreateSession(CreateParams parameters, Action<SessionResult> done = null, Action<RpcException> failed = null)
            => Request(Methods.SessionCreate, parameters, done, failed);

        public Task<Done> Send(string sessionId, string text, List<ImageInput> images = null, Action<RpcException> failed = null)
            => Request(Methods.SessionSend, new SendParams { SessionId = sessionId, Text = text, Images = images }, null, failed);

        public Task<Done> Interrupt(string sessionId, Action<RpcException> failed = null)
            => Request(Methods.SessionInterrupt, new SessionParams { SessionId = sessionId }, null, failed);

        /// Answers a permission request with one of its options (`PermissionOption.Id`).
        public Task<Done> RespondPermission(string sessionId, string requestId, string optionId, string message = null, Action<RpcException> failed = null)
            => Request(Methods.SessionRespondPermission, new PermissionParams { SessionId = sessionId, RequestId = requestId, Option = optionId, Message = message }, null, failed);

        /// Answers a question: answers keyed by question text (a label or text, or a list of labels).
        public Task<Done> AnswerQuestion(string sessionId, string requestId, Dictionary<string, object> answers, Action<RpcException> failed = null)
            => Request(Methods.SessionAnswerQuestion, new QuestionParams { SessionId = sessionId, RequestId = requestId, Answers = answers }, null, failed);

        /// Sends answers or a decline as a whole (`Codiva.Panel.QuestionStepper.Submit`/`Decline`).
        public Task<Done> AnswerQuestion(QuestionParams answer, Action<RpcException> failed = null)
            => Request(Methods.SessionAnswerQuestion, answer, null, failed);

        public Task<Done> DeclineQuestion(string sessionId, string requestId, string message = null, Action<RpcException> failed = null)
            => Request(Methods.SessionAnswerQuestion, new QuestionParams { SessionId = sessionId, RequestId = requestId, Decline = true, Message = message }, null, failed);

        public Task<Done> SetModel(string sessionId, string model, Action<RpcException> failed = null)
            => Request(Methods.SessionSetModel, new ModelParams { SessionId = sessionId, Model = model }, null, failed);

        public Task<Done> SetAgent(string sessionId, string agent, Action<RpcException> failed = null)
            => Request(Methods.SessionSetAgent, new AgentParams { SessionId = sessionId, Agent = agent }, null, failed);

        public Task<Done> SetPermissionMode(string sessionId, string mode, Action<RpcException> failed = null)
            => Request(Methods.SessionSetPermissionMode, new ModeParams { SessionId = sessionId, Mode = mode }, null, failed);

        /// `sessionId` null: the default for sessions created from now on.
        public Task<Done> SetApprovalPolicy(string sessionId, ApprovalPolicy policy, Action<RpcException> failed = null)
            => Request(Methods.SessionSetApprovalPolicy, new ApprovalParams { SessionId = sessionId, Policy = policy }, null, failed);

        /// `agents/list` into the store (each agent's capabilities: `Store.McpOf`).
        public Task<AgentsResult> LoadAgents(Action<RpcException> failed = null)
            => Request(Methods.AgentsList, new NoParams(), result => Store.SetAgents(result.Agents), failed);

        /// Asks the agent to connect to a failed MCP server again; the outcome comes as
        /// `session/mcpServers` (the row's `McpServers`).
        public Task<Done> ReconnectMcp(string sessionId, string server, Action<RpcException> failed = null) =>
            Request(Methods.SessionMcpReconnect, new McpReconnectParams { SessionId = sessionId, Server = server }, null, failed);

        /// Drops the connection without stopping the client (as a domain reload does); it reconnects.
        public void DropConnection()
        {
            RpcConnection connection;
            lock (gate) connection = rpc;
            connection?.Dispose();
        }

        public void Dispose()
        {
            Thread thread;
            lock (gate)
            {
                stopped = true;
                stopping.Set();
                rpc?.Dispose();
                rpc = null;
                thread = connector;
            }
            thread?.Join();
            SetState(ConnectionState.Stopped);
        }
    }
}
