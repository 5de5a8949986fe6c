// Notifications while the panel is not focused: a new permission request or question, or a turn
// that ended (the session left `running`/`awaiting_*` for `completed`, `failed`, `interrupted`,
// `rate_limited`, `needs_login`), counted on the window's tab badge until the panel is focused
// again, and returned so the Editor can beep. A session seen for the first time (a snapshot
// after connecting) notifies nothing: only what happens while it is watched.
//
// PanelFeed: the notifications the store does not fold — `session/planUsage` (the login's, not
// a session's) and `agents/loginProgress` — read from the client's stream as their generated
// classes and given, on the dispatcher's thread, to the plan-usage tracker and login models.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Protocol;

namespace Codiva.Panel
{
    public enum NoticeKind { Permission, Question, TurnEnded }

    public sealed class Notice
    {
        public string SessionId;
        public NoticeKind Kind;
        /// One line, plain (a title for the OS or a tooltip).
        public string Words;
    }

    public sealed class Notifier
    {
        readonly Dictionary<string, HashSet<string>> prompts = new Dictionary<string, HashSet<string>>();
        readonly Dictionary<string, string> statuses = new Dictionary<string, string>();

        public bool Focused { get; private set; } = true;
        /// What happened since the panel lost focus (0 while focused).
        public int Badge { get; private set; }

        public void SetFocused(bool focused)
        {
            Focused = focused;
            if (focused) Badge = 0;
        }

        /// Looks at session `id` after a change (`SessionStore.Changed`): the notices for what
        /// is new while the panel is not focused (empty while it is; the state is kept either way).
        public List<Notice> Observe(string id, SessionView view, Language language)
        {
            var notices = new List<Notice>();
            if (id == null || view == null) return notices;
            var title = Words.OneLine(view.Row?.Title ?? id, 60);
            var status = view.Row?.Status ?? view.Status;
            var open = new HashSet<string>(view.Prompts.Where(p => p?.RequestId != null).Select(p => p.RequestId));
            HashSet<string> known;
            string before;
            var first = !prompts.TryGetValue(id, out known);
            statuses.TryGetValue(id, out before);
            prompts[id] = open;
            statuses[id] = status;
            if (first) return notices;
            foreach (var prompt in view.Prompts)
            {
                if (prompt?.RequestId == null || known.Contains(prompt.RequestId)) continue;
                if (prompt.Kind == Known.Prompt.Permission)
                    notices.Add(new Notice { SessionId = id, Kind = NoticeKind.Permission, Words = Strings.Format(Str.NotifyPermission, language, title, ToolDescriber.Title(prompt.Tool, prompt.Title)) });
                else if (prompt.Kind == Known.Prompt.Question)
                    notices.Add(new Notice { SessionId = id, Kind = NoticeKind.Question, Words = Strings.Format(Str.NotifyQuestion, language, title) });
            }
            var ended = EndWords(status, language);
            if (ended != null && Working(before))
                notices.Add(new Notice { SessionId = id, Kind = NoticeKind.TurnEnded, Words = Strings.Format(Str.NotifyTurnEnded, language, title, ended) });
            if (Focused) return new List<Notice>();
            Badge += notices.Count;
            return notices;
        }

        /// A session forgotten (removed): nothing more to compare.
        public void Forget(string id)
        {
            prompts.Remove(id);
            statuses.Remove(id);
        }

        static bool Working(string status) =>
            status == Known.Status.Running || status == Known.Status.AwaitingPermission || status == Known.Status.AwaitingAnswer || status == Known.Status.Starting;

        static string EndWords(string status, Language language)
        {
            switch (status)
            {
                case Known.Status.Completed: return Strings.Get(Str.StatusCompleted, language);
                case Known.Status.Failed: return Strings.Get(Str.StatusFailed, language);
                case Known.Status.Interrupted: return Strings.Get(Str.StatusInterrupted, language);
                case Known.Status.RateLimited: return Strings.Get(Str.StatusRateLimited, language);
                case Known.Status.NeedsLogin: return Strings.Get(Str.StatusNeedsLogin, language);
                default: return null;
            }
        }
    }

    /// Reads the notifications the store does not take from a client's stream (on its reader
    /// thread) and gives them, on the dispatcher's thread, to the panel's models.
    public sealed class PanelFeed : IDisposable
    {
        readonly CodivaClient client;
        readonly IDispatcher dispatcher;
        public readonly PlanUsageTracker Plan;

        /// The notifications the feed takes typed (the store reads them as `OtherEvent`s).
        public static readonly IReadOnlyCollection<string> Taken = new[]
        {
            Notifications.SessionPlanUsage, Notifications.AgentsLoginProgress,
        };

        /// An `agents/loginProgress` (on the dispatcher's thread): give it to the LoginModel of its agent.
        public event Action<LoginProgressParams> LoginProgress;

        public PanelFeed(CodivaClient client, IDispatcher dispatcher, PlanUsageTracker plan = null)
        {
            this.client = client;
            this.dispatcher = dispatcher;
            Plan = plan ?? new PlanUsageTracker();
            client.Received += OnReceived;
        }

        void OnReceived(string method, object parameters)
        {
            switch (method)
            {
                case Notifications.SessionPlanUsage:
                case Notifications.SessionConnected:
                {
                    var ev = Wire.FromJson<SessionEventParams>(parameters);
                    if (ev != null) dispatcher.Post(() => Plan.Observe(ev));
                    break;
                }
                case Notifications.AgentsLoginProgress:
                {
                    var progress = Wire.FromJson<LoginProgressParams>(parameters);
                    if (progress != null) dispatcher.Post(() => LoginProgress?.Invoke(progress));
                    break;
                }
            }
        }

        public void Dispose() => client.Received -= OnReceived;
    }
}
