// The requests and notifications this client speaks, by name, with their typed params and
// results. The contract test reads these lists and compares them with the schema.
using System;
using System.Collections.Generic;

namespace Codiva.Protocol
{
    public interface IMethod
    {
        string Name { get; }
        Type ParamsType { get; }
        Type ResultType { get; }
    }

    public sealed class Method<TParams, TResult> : IMethod
    {
        public Method(string name) { Name = name; }
        public string Name { get; }
        public Type ParamsType => typeof(TParams);
        public Type ResultType => typeof(TResult);
    }

    public static class Methods
    {
        public static readonly Method<NoParams, InitializeResult> Initialize = new Method<NoParams, InitializeResult>("initialize");
        public static readonly Method<NoParams, AgentsResult> AgentsList = new Method<NoParams, AgentsResult>("agents/list");
        public static readonly Method<NoParams, ManagerSnapshot> ManagerSnapshot = new Method<NoParams, ManagerSnapshot>("manager/snapshot");
        public static readonly Method<NoParams, SessionListResult> SessionList = new Method<NoParams, SessionListResult>("session/list");
        public static readonly Method<CreateParams, SessionResult> SessionCreate = new Method<CreateParams, SessionResult>("session/create");
        public static readonly Method<SendParams, Done> SessionSend = new Method<SendParams, Done>("session/send");
        public static readonly Method<ResumeParams, Done> SessionResume = new Method<ResumeParams, Done>("session/resume");
        public static readonly Method<SessionParams, Done> SessionInterrupt = new Method<SessionParams, Done>("session/interrupt");
        public static readonly Method<PermissionParams, Done> RespondPermission = new Method<PermissionParams, Done>("session/respondPermission");
        public static readonly Method<QuestionParams, Done> AnswerQuestion = new Method<QuestionParams, Done>("session/answerQuestion");
        public static readonly Method<ModelParams, Done> SetModel = new Method<ModelParams, Done>("session/setModel");
        public static readonly Method<AgentParams, Done> SetAgent = new Method<AgentParams, Done>("session/setAgent");
        public static readonly Method<ModeParams, Done> SetPermissionMode = new Method<ModeParams, Done>("session/setPermissionMode");
        public static readonly Method<ApprovalParams, Done> SetApprovalPolicy = new Method<ApprovalParams, Done>("session/setApprovalPolicy");
        public static readonly Method<ReadParams, ReadPage> SessionRead = new Method<ReadParams, ReadPage>("session/read");
        public static readonly Method<McpReconnectParams, Done> McpReconnect = new Method<McpReconnectParams, Done>("session/mcpReconnect");
        public static readonly Method<SessionParams, SessionSnapshot> SessionSnapshot = new Method<SessionParams, SessionSnapshot>("session/snapshot");

        public static IEnumerable<IMethod> All()
        {
            foreach (var field in typeof(Methods).GetFields())
                if (field.GetValue(null) is IMethod method) yield return method;
        }
    }

    public static class Notifications
    {
        /// Notification name -> the class its params are read as.
        public static readonly Dictionary<string, Type> Types = new Dictionary<string, Type>
        {
            { "session/status", typeof(StatusEvent) },
            { "session/log", typeof(LogEvent) },
            { "session/stream", typeof(StreamEvent) },
            { "session/permission", typeof(PromptOpenedEvent) },
            { "session/question", typeof(PromptOpenedEvent) },
            { "session/promptClosed", typeof(PromptClosedEvent) },
            { "session/model", typeof(ModelEvent) },
            { "session/permissionMode", typeof(PermissionModeEvent) },
            { "session/connected", typeof(ConnectedEvent) },
            { "session/agentSession", typeof(AgentSessionEvent) },
            { "session/todos", typeof(TodosEvent) },
            { "session/usage", typeof(UsageEvent) },
            { "session/mcpServers", typeof(McpServersEvent) },
            { "session/subagent", typeof(SubagentEvent) },
            { "session/agentExited", typeof(AgentExitedEvent) },
            { "session/agentSwitched", typeof(AgentSwitchedEvent) },
            { "session/updated", typeof(SessionUpdatedEvent) },
            { "session/removed", typeof(SessionRemovedEvent) },
            { "repo/base", typeof(BaseEvent) },
            { "warning", typeof(WarningEvent) },
        };

        public static Sequenced Read(string method, object parameters)
        {
            Type type;
            // Params that are not an object read as no event of that kind (their `seq`, if any, counts).
            if (Types.TryGetValue(method, out type) && Wire.FromJson(type, parameters) is Sequenced typed) return typed;
            return new OtherEvent { Method = method, Params = parameters, Seq = Codiva.Json.JsonRead.Long(parameters, "seq") ?? 0 };
        }
    }
}
