// The server's notifications, one class per kind. A session event's class stands for one
// branch of `SessionEventParams` (tagged by `event`).
using System.Collections.Generic;

namespace Codiva.Protocol
{
    /// What every notification from the manager carries: its place in the stream.
    public abstract class Sequenced
    {
        /// 0 when absent (only start-up warnings and "events were dropped" have none).
        public abstract long SeqOrZero { get; }
    }

    public abstract class SessionEvent : Sequenced
    {
        [Wire("seq", Required = true)] public long Seq;
        [Wire("session_id", Required = true)] public string SessionId;
        public override long SeqOrZero => Seq;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "status")]
    public sealed class StatusEvent : SessionEvent
    {
        [Wire("status", Required = true)] public string Status;
        [Wire("detail")] public string Detail;
        [Wire("detail_code")] public NoteCode DetailCode;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "log")]
    public sealed class LogEvent : SessionEvent
    {
        [Wire("entry", Required = true)] public LogEntry Entry;
        [Wire("update", Required = true)] public bool Update;
        /// `main`, or `subagent` (with `tool_use_id`).
        [Wire("scope", Required = true)] public string Scope;
        [Wire("tool_use_id")] public string ToolUseId;
        /// How many of the scope's oldest entries the daemon has dropped, in all, to keep within
        /// its budget (0 while none): a client drops as many from its copy.
        [Wire("dropped")] public long Dropped;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "stream")]
    public sealed class StreamEvent : SessionEvent
    {
        [Wire("text", Required = true)] public string Text;
        [Wire("reset", Required = true)] public bool Reset;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "prompt_opened")]
    public sealed class PromptOpenedEvent : SessionEvent
    {
        [Wire("prompt", Required = true)] public Prompt Prompt;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "prompt_closed")]
    public sealed class PromptClosedEvent : SessionEvent
    {
        [Wire("request_id", Required = true)] public string RequestId;
        [Wire("resolution", Required = true)] public string Resolution;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "model")]
    public sealed class ModelEvent : SessionEvent
    {
        [Wire("model")] public string Model;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "permission_mode")]
    public sealed class PermissionModeEvent : SessionEvent
    {
        [Wire("mode", Required = true)] public string Mode;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "connected")]
    public sealed class ConnectedEvent : SessionEvent
    {
        [Wire("agent", Required = true)] public AgentInfo Agent;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "agent_session")]
    public sealed class AgentSessionEvent : SessionEvent
    {
        /// The agent's own session id; null when the conversation is gone (a failed resume, a
        /// switch to an agent with none to resume).
        [Wire("id")] public string Id;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "todos")]
    public sealed class TodosEvent : SessionEvent
    {
        [Wire("progress", Required = true)] public TodoProgress Progress;
        /// The whole list as it stands now.
        [Wire("items")] public List<TodoItem> Items;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "mcp_servers")]
    public sealed class McpServersEvent : SessionEvent
    {
        /// Every MCP server of the session, each time one's status changes.
        [Wire("servers", Required = true)] public List<McpServerState> Servers;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "usage")]
    public sealed class UsageEvent : SessionEvent
    {
        [Wire("usage", Required = true)] public UsageView Usage;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "subagent")]
    public sealed class SubagentEvent : SessionEvent
    {
        [Wire("subagent", Required = true)] public SubagentView Subagent;
    }

    [Schema("SessionEventParams", Tag = "event", Variant = "agent_exited")]
    public sealed class AgentExitedEvent : SessionEvent
    {
        [Wire("code")] public long? Code;
        [Wire("signal")] public long? Signal;
        [Wire("requested", Required = true)] public bool Requested;
    }

    /// The session goes on with another agent (`from`, `to`: names for people): what the
    /// previous one said of itself (its handshake, its model) no longer holds.
    [Schema("SessionEventParams", Tag = "event", Variant = "agent_switched")]
    public sealed class AgentSwitchedEvent : SessionEvent
    {
        [Wire("from", Required = true)] public string From;
        [Wire("to", Required = true)] public string To;
    }

    [Schema("SessionUpdatedParams")]
    public sealed class SessionUpdatedEvent : Sequenced
    {
        [Wire("seq", Required = true)] public long Seq;
        [Wire("session", Required = true)] public SessionInfo Session;
        public override long SeqOrZero => Seq;
    }

    [Schema("SessionRemovedParams")]
    public sealed class SessionRemovedEvent : Sequenced
    {
        [Wire("seq", Required = true)] public long Seq;
        [Wire("session_id", Required = true)] public string SessionId;
        public override long SeqOrZero => Seq;
    }

    [Schema("BaseParams")]
    public sealed class BaseEvent : Sequenced
    {
        [Wire("seq", Required = true)] public long Seq;
        [Wire("base", Required = true)] public string Base;
        public override long SeqOrZero => Seq;
    }

    [Schema("WarningParams")]
    public sealed class WarningEvent : Sequenced
    {
        [Wire("seq")] public long? Seq;
        [Wire("message", Required = true)] public string Message;
        public override long SeqOrZero => Seq ?? 0;
    }

    /// A notification this client has no class for (kept so its `seq` still counts).
    public sealed class OtherEvent : Sequenced
    {
        public string Method;
        public object Params;
        public long Seq;
        public override long SeqOrZero => Seq;
    }
}
