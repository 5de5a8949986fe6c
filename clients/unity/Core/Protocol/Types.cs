// The protocol's objects the client uses, as docs/protocol.schema.json defines them. Enums
// stay strings: a value this version does not know is kept, not refused (the protocol adds
// variants; a client shows an unknown one as "other").
using System.Collections.Generic;

namespace Codiva.Protocol
{
    [Schema("NoParams")] public sealed class NoParams { }
    [Schema("Done")] public sealed class Done { }

    [Schema("ServerInfo")]
    public sealed class ServerInfo
    {
        [Wire("name", Required = true)] public string Name;
        [Wire("version", Required = true)] public string Version;
    }

    [Schema("RepoInfo")]
    public sealed class RepoInfo
    {
        [Wire("root", Required = true)] public string Root;
        [Wire("base", Required = true)] public string Base;
    }

    [Schema("Capabilities")]
    public sealed class Capabilities
    {
        [Wire("agents", Required = true)] public List<string> Agents;
        [Wire("images", Required = true)] public bool Images;
        [Wire("merge", Required = true)] public bool Merge;
        [Wire("discard_confirmation", Required = true)] public bool DiscardConfirmation;
        [Wire("subagent_logs", Required = true)] public bool SubagentLogs;
        [Wire("event_seq", Required = true)] public bool EventSeq;
    }

    [Schema("InitializeResult")]
    public sealed class InitializeResult
    {
        [Wire("protocol_version", Required = true)] public string ProtocolVersion;
        [Wire("server", Required = true)] public ServerInfo Server;
        [Wire("repo", Required = true)] public RepoInfo Repo;
        [Wire("capabilities", Required = true)] public Capabilities Capabilities;
        [Wire("warnings", Required = true)] public List<string> Warnings;
    }

    [Schema("NoteCode")]
    public sealed class NoteCode
    {
        [Wire("name", Required = true)] public string Name;
        [Wire("args", Required = true)] public List<string> Args;
    }

    [Schema("TodoProgress")]
    public sealed class TodoProgress
    {
        [Wire("done", Required = true)] public long Done;
        [Wire("total", Required = true)] public long Total;
    }

    /// One row of `session/list` (the schema's `oneOf` on `phase`).
    [Schema("SessionInfo")]
    public sealed class SessionInfo
    {
        [Wire("id", Required = true)] public string Id;
        [Wire("title", Required = true)] public string Title;
        [Wire("prompt", Required = true)] public string Prompt;
        [Wire("branch", Required = true)] public string Branch;
        [Wire("worktree", Required = true)] public string Worktree;
        [Wire("base", Required = true)] public string Base;
        [Wire("phase", Required = true)] public string Phase;
        [Wire("status", Required = true)] public string Status;
        [Wire("detail")] public string Detail;
        [Wire("detail_code")] public NoteCode DetailCode;
        [Wire("agent", Required = true)] public string Agent;
        [Wire("agent_session_id")] public string AgentSessionId;
        [Wire("model")] public string Model;
        [Wire("cost_usd")] public double? CostUsd;
        [Wire("active_ms", Required = true)] public long ActiveMs;
        [Wire("created_at", Required = true)] public long CreatedAt;
        [Wire("pending_prompts", Required = true)] public long PendingPrompts;
        [Wire("todos", Required = true)] public TodoProgress Todos;
        [Wire("files")] public List<string> Files;
        [Wire("commit")] public string Commit;
        /// Runs in place (`worktree` is then the directory itself).
        [Wire("in_place")] public bool InPlace;
        [Wire("mcp_servers")] public List<McpServerState> McpServers;
    }

    [Schema("ManagerSnapshot")]
    public sealed class ManagerSnapshot
    {
        [Wire("seq", Required = true)] public long Seq;
        [Wire("sessions", Required = true)] public List<SessionInfo> Sessions;
    }

    [Schema("SessionListResult")]
    public sealed class SessionListResult
    {
        [Wire("sessions", Required = true)] public List<SessionInfo> Sessions;
    }

    [Schema("SessionResult")]
    public sealed class SessionResult
    {
        [Wire("session", Required = true)] public SessionInfo Session;
    }

    [Schema("ImageInput")]
    public sealed class ImageInput
    {
        [Wire("media_type", Required = true)] public string MediaType;
        [Wire("data", Required = true)] public string Data;

        /// The media types the model API takes (anything else is refused by the server).
        public static readonly string[] MediaTypes = { "image/png", "image/jpeg", "image/gif", "image/webp" };

        public static ImageInput FromBytes(string mediaType, byte[] bytes)
        {
            if (System.Array.IndexOf(MediaTypes, mediaType) < 0)
                throw new System.ArgumentException("not an image type the model takes: " + mediaType);
            return new ImageInput { MediaType = mediaType, Data = System.Convert.ToBase64String(bytes) };
        }
    }

    [Schema("ApprovalRule")]
    public sealed class ApprovalRule
    {
        [Wire("tool", Required = true)] public string Tool;
        [Wire("command_prefix")] public string CommandPrefix;
    }

    /// `mode`: `ask`, `allow_edits`, `allow_all` or `rules` (with `rules`).
    [Schema("ApprovalPolicy")]
    public sealed class ApprovalPolicy
    {
        [Wire("mode", Required = true)] public string Mode;
        [Wire("rules")] public List<ApprovalRule> Rules;
    }

    [Schema("CreateParams")]
    public sealed class CreateParams
    {
        [Wire("prompt", Required = true)] public string Prompt;
        [Wire("agent")] public string Agent;
        [Wire("model")] public string Model;
        [Wire("permission_mode")] public string PermissionMode;
        [Wire("approval_policy")] public ApprovalPolicy ApprovalPolicy;
        [Wire("images")] public List<ImageInput> Images;
        /// Run in this directory itself (absolute: the repository's root or inside it), no
        /// worktree: the Unity project. One such session at a time per directory.
        [Wire("in_place")] public string InPlace;
        /// MCP servers the agent gets, by name (codiva writes them to a private config file).
        [Wire("mcp_servers")] public Dictionary<string, McpServerConfig> McpServers;
        [Wire("append_system_prompt")] public string AppendSystemPrompt;
        /// The agent's own rules: `mcp__unity-ops__ping`, `Bash(git *)`.
        [Wire("allowed_tools")] public List<string> AllowedTools;
        [Wire("disallowed_tools")] public List<string> DisallowedTools;
    }

    /// How the agent reaches one MCP server (`type` "stdio" or "http").
    public abstract class McpServerConfig { }

    [Schema("McpServerConfig", Tag = "type", Variant = "http")]
    public sealed class HttpMcpServer : McpServerConfig
    {
        [Wire("url", Required = true)] public string Url;
        /// Sent with every request (`Authorization: Bearer …`).
        [Wire("headers")] public Dictionary<string, string> Headers;
    }

    [Schema("McpServerConfig", Tag = "type", Variant = "stdio")]
    public sealed class StdioMcpServer : McpServerConfig
    {
        [Wire("command", Required = true)] public string Command;
        [Wire("args")] public List<string> Args;
        [Wire("env")] public Dictionary<string, string> Env;
    }

    /// One MCP server of a session and its status (`pending`, `connected`, `failed`,
    /// `needs_auth`, `disabled`, `not_reported` — an ACP agent says nothing of its servers —,
    /// `unknown`), as the agent reports it.
    [Schema("McpServerState")]
    public sealed class McpServerState
    {
        [Wire("name", Required = true)] public string Name;
        [Wire("status", Required = true)] public string Status;
        [Wire("error")] public string Error;
    }

    [Schema("McpReconnectParams")]
    public sealed class McpReconnectParams
    {
        [Wire("session_id", Required = true)] public string SessionId;
        [Wire("server", Required = true)] public string Server;
    }

    [Schema("SessionParams")]
    public sealed class SessionParams
    {
        [Wire("session_id", Required = true)] public string SessionId;
    }

    [Schema("SendParams")]
    public sealed class SendParams
    {
        [Wire("session_id", Required = true)] public string SessionId;
        [Wire("text", Required = true)] public string Text;
        [Wire("images")] public List<ImageInput> Images;
    }

    [Schema("ResumeParams")]
    public sealed class ResumeParams
    {
        [Wire("session_id", Required = true)] public string SessionId;
        [Wire("text")] public string Text;
    }

    /// An answer to a permission request: `Option` is the id of one of the request's options.
    [Schema("PermissionParams")]
    public sealed class PermissionParams
    {
        [Wire("session_id", Required = true)] public string SessionId;
        [Wire("request_id", Required = true)] public string RequestId;
        [Wire("option")] public string Option;
        [Wire("message")] public string Message;
    }

    /// Answers keyed by question text: a label or free text (string), or labels (List<string>).
    [Schema("QuestionParams")]
    public sealed class QuestionParams
    {
        [Wire("session_id", Required = true)] public string SessionId;
        [Wire("request_id", Required = true)] public string RequestId;
        [Wire("answers")] public Dictionary<string, object> Answers;
        [Wire("decline")] public bool? Decline;
        [Wire("message")] public string Message;
    }

    [Schema("ModelParams")]
    public sealed class ModelParams
    {
        [Wire("session_id", Required = true)] public string SessionId;
        [Wire("model")] public string Model;
    }

    [Schema("AgentParams")]
    public sealed class AgentParams
    {
        [Wire("session_id", Required = true)] public string SessionId;
        [Wire("agent", Required = true)] public string Agent;
    }

    [Schema("ModeParams")]
    public sealed class ModeParams
    {
        [Wire("session_id", Required = true)] public string SessionId;
        [Wire("mode", Required = true)] public string Mode;
    }

    [Schema("ApprovalParams")]
    public sealed class ApprovalParams
    {
        [Wire("policy", Required = true)] public ApprovalPolicy Policy;
        [Wire("session_id")] public string SessionId;
    }

    [Schema("ReadParams")]
    public sealed class ReadParams
    {
        [Wire("session_id", Required = true)] public string SessionId;
        [Wire("after")] public long? After;
        [Wire("limit")] public long? Limit;
        [Wire("subagent")] public string Subagent;
    }

    /// A log entry (the schema's `oneOf` on `kind`); a tool entry's own members are kept raw.
    [Schema("LogEntry")]
    public sealed class LogEntry
    {
        [Wire("id", Required = true)] public long Id;
        [Wire("at_ms", Required = true)] public long AtMs;
        [Wire("kind", Required = true)] public string Kind;
        [Wire("text")] public string Text;
        [Wire("level")] public string Level;
        [Wire("code")] public NoteCode Code;
        [Wire("tool_use_id")] public string ToolUseId;
        [Wire("name")] public string Name;
        [Wire("title")] public string Title;
        [Wire("tool_kind")] public string ToolKind;
        [Wire("summary")] public string Summary;
        [Wire("status")] public string Status;
        [Wire("result")] public string Result;
        [Wire("duration_ms")] public long? DurationMs;
        [Wire("input")] public object Input;
        [Wire("content")] public List<object> Content;
        [Wire("notes")] public List<object> Notes;
    }

    [Schema("ReadPage")]
    public sealed class ReadPage
    {
        [Wire("entries", Required = true)] public List<LogEntry> Entries;
        [Wire("next_after")] public long? NextAfter;
        [Wire("dropped_entries", Required = true)] public long DroppedEntries;
    }

    [Schema("PermissionOption")]
    public sealed class PermissionOption
    {
        [Wire("id", Required = true)] public string Id;
        [Wire("kind", Required = true)] public string Kind;
        [Wire("label", Required = true)] public string Label;
        [Wire("scope")] public object Scope;
    }

    [Schema("QuestionOption")]
    public sealed class QuestionOption
    {
        [Wire("label", Required = true)] public string Label;
        [Wire("description")] public string Description;
    }

    [Schema("Question")]
    public sealed class Question
    {
        [Wire("question", Required = true)] public string Text;
        [Wire("header")] public string Header;
        [Wire("options", Required = true)] public List<QuestionOption> Options;
        [Wire("multi_select", Required = true)] public bool MultiSelect;
    }

    /// A request waiting for the user (the schema's `oneOf` on `kind`: `permission`, `question`).
    [Schema("Prompt")]
    public sealed class Prompt
    {
        [Wire("kind", Required = true)] public string Kind;
        [Wire("request_id", Required = true)] public string RequestId;
        [Wire("input", Required = true)] public object Input;
        [Wire("tool_use_id")] public string ToolUseId;
        [Wire("tool")] public string Tool;
        [Wire("tool_kind")] public string ToolKind;
        [Wire("title")] public string Title;
        [Wire("description")] public string Description;
        [Wire("reason")] public string Reason;
        [Wire("blocked_path")] public string BlockedPath;
        [Wire("agent_id")] public string AgentId;
        [Wire("options")] public List<PermissionOption> Options;
        [Wire("suggestions")] public List<object> Suggestions;
        [Wire("content")] public List<object> Content;
        [Wire("notes")] public List<object> Notes;
        [Wire("questions")] public List<Question> Questions;
    }

    /// One item of the agent's TODO list (`status`: `pending`, `in_progress`, `completed`).
    [Schema("TodoItem")]
    public sealed class TodoItem
    {
        [Wire("id", Required = true)] public string Id;
        [Wire("content", Required = true)] public string Content;
        [Wire("status", Required = true)] public string Status;
    }

    [Schema("TokenUsage")]
    public sealed class TokenUsage
    {
        [Wire("input", Required = true)] public long Input;
        [Wire("output", Required = true)] public long Output;
        [Wire("cache_read", Required = true)] public long CacheRead;
        [Wire("cache_creation", Required = true)] public long CacheCreation;
    }

    /// A session's token use, context and cost (`session/usage`, the snapshot's `usage`).
    [Schema("UsageView")]
    public sealed class UsageView
    {
        [Wire("tokens", Required = true)] public TokenUsage Tokens = new TokenUsage();
        [Wire("context_used", Required = true)] public long ContextUsed;
        [Wire("context_window")] public long? ContextWindow;
        [Wire("cost_usd")] public double? CostUsd;
    }

    /// A subagent the session's agent started (by the tool call that started it).
    [Schema("SubagentView")]
    public sealed class SubagentView
    {
        [Wire("tool_use_id", Required = true)] public string ToolUseId;
        [Wire("task_id")] public string TaskId;
        [Wire("description")] public string Description;
        [Wire("subagent_type")] public string SubagentType;
        [Wire("background", Required = true)] public bool Background;
        [Wire("status", Required = true)] public string Status;
        [Wire("last_tool")] public string LastTool;
        [Wire("tokens", Required = true)] public long Tokens;
        [Wire("tool_uses", Required = true)] public long ToolUses;
        [Wire("elapsed_ms", Required = true)] public long ElapsedMs;
        [Wire("summary")] public string Summary;
    }

    /// One entry of an agent's model catalog (`default`, `opus`, or a full model name).
    [Schema("ModelChoice")]
    public sealed class ModelChoice
    {
        [Wire("id", Required = true)] public string Id;
        [Wire("display_name")] public string DisplayName;
        [Wire("description")] public string Description;
    }

    [Schema("CommandInfo")]
    public sealed class CommandInfo
    {
        [Wire("name", Required = true)] public string Name;
        [Wire("description")] public string Description;
        [Wire("argument_hint")] public string ArgumentHint;
    }

    [Schema("Account")]
    public sealed class Account
    {
        [Wire("email")] public string Email;
        [Wire("subscription")] public string Subscription;
        [Wire("api_provider")] public string ApiProvider;
        [Wire("api_key_source")] public string ApiKeySource;
        [Wire("token_source")] public string TokenSource;
    }

    /// What the agent said about itself when it connected (`session/connected`).
    [Schema("AgentInfo")]
    public sealed class AgentInfo
    {
        [Wire("version")] public string Version;
        [Wire("models", Required = true)] public List<ModelChoice> Models = new List<ModelChoice>();
        [Wire("commands", Required = true)] public List<CommandInfo> Commands = new List<CommandInfo>();
        [Wire("account")] public Account Account;
        [Wire("permission_mode")] public string PermissionMode;

        /// The entry of this agent's catalog that the model it reports (`model`) is: that entry
        /// itself, else the one alias that is a word of the model's name (`sonnet` for
        /// `claude-sonnet-4-5-20250929`; `default`, which names no model, never matches a
        /// word); null when none or several match (codiva_protocol::agent::catalog_entry).
        public string CatalogEntry(string model)
        {
            if (model == null) return null;
            foreach (var choice in Models)
                if (choice.Id == model) return choice.Id;
            var words = new HashSet<string>();
            var start = -1;
            for (var i = 0; i <= model.Length; i++)
            {
                var alphanumeric = i < model.Length && model[i] < 0x80 && char.IsLetterOrDigit(model[i]);
                if (alphanumeric && start < 0) start = i;
                else if (!alphanumeric && start >= 0) { words.Add(model.Substring(start, i - start)); start = -1; }
            }
            string found = null;
            foreach (var choice in Models)
            {
                if (choice.Id == "default" || !words.Contains(choice.Id)) continue;
                if (found != null) return null;
                found = choice.Id;
            }
            return found;
        }
    }

    /// A session's whole state (`session/snapshot`): what a client knows about it, the fold of
    /// its events (`SessionView`; docs/serve-api.md, "What a client knows about a session").
    [Schema("SessionSnapshot")]
    public sealed class SessionSnapshot
    {
        [Wire("status", Required = true)] public string Status;
        [Wire("detail")] public string Detail;
        [Wire("detail_code")] public NoteCode DetailCode;
        [Wire("connected", Required = true)] public bool Connected;
        [Wire("agent_session_id")] public string AgentSessionId;
        [Wire("model")] public string Model;
        /// The entry of the agent's model catalog that `model` is (what a model picker marks).
        [Wire("model_entry")] public string ModelEntry;
        [Wire("permission_mode")] public string PermissionMode;
        [Wire("prompts", Required = true)] public List<Prompt> Prompts;
        [Wire("todos", Required = true)] public TodoProgress Todos;
        [Wire("todo_items")] public List<TodoItem> TodoItems;
        [Wire("usage", Required = true)] public UsageView Usage;
        [Wire("subagents", Required = true)] public List<SubagentView> Subagents;
        [Wire("log", Required = true)] public List<LogEntry> Log;
        [Wire("dropped_entries", Required = true)] public long DroppedEntries;
        [Wire("streaming", Required = true)] public string Streaming;
        /// What the agent said about itself when it connected; null before its handshake.
        [Wire("agent")] public AgentInfo Agent;
        /// Its place in the manager's stream: it holds every event of the session whose `seq`
        /// is not greater, and none after. Null from a server before this field (it may then
        /// hold any of the events sent while it was asked for).
        [Wire("seq")] public long? Seq;
    }

    [Schema("AgentAvailability")]
    public sealed class AgentAvailability
    {
        [Wire("id", Required = true)] public string Id;
        [Wire("name", Required = true)] public string Name;
        [Wire("status", Required = true)] public string Status;
        [Wire("default", Required = true)] public bool Default;
        [Wire("program")] public string Program;
        [Wire("install")] public string Install;
        /// What it can do (known once it is installed).
        [Wire("capabilities")] public AgentCapabilities Capabilities;
    }

    /// What an agent can do; the panel offers a feature only when it is true.
    [Schema("AgentCapabilities")]
    public sealed class AgentCapabilities
    {
        [Wire("permissions", Required = true)] public bool Permissions;
        [Wire("interrupt", Required = true)] public bool Interrupt;
        [Wire("set_model", Required = true)] public bool SetModel;
        [Wire("set_mode", Required = true)] public bool SetMode;
        [Wire("resume", Required = true)] public bool Resume;
        [Wire("model_catalog", Required = true)] public bool ModelCatalog;
        [Wire("usage", Required = true)] public bool Usage;
        [Wire("cost", Required = true)] public bool Cost;
        [Wire("transcript_restore", Required = true)] public bool TranscriptRestore;
        [Wire("titles")] public bool Titles;
        [Wire("mcp_servers")] public bool McpServers;
        /// It reports each MCP server's status (else they show `not_reported`).
        [Wire("mcp_status")] public bool McpStatus;
        /// A failed MCP server can be connected again (`session/mcpReconnect`).
        [Wire("mcp_reconnect")] public bool McpReconnect;
        [Wire("tool_rules")] public bool ToolRules;
    }

    [Schema("AgentsResult")]
    public sealed class AgentsResult
    {
        [Wire("agents", Required = true)] public List<AgentAvailability> Agents;
    }

    [Schema("RefusalData")]
    public sealed class RefusalData
    {
        [Wire("reason", Required = true)] public string Reason;
        [Wire("args", Required = true)] public List<string> Args;
    }

    [Schema("ErrorBody")]
    public sealed class ErrorBody
    {
        [Wire("code", Required = true)] public long Code;
        [Wire("message", Required = true)] public string Message;
        [Wire("data")] public object Data;
    }
}
