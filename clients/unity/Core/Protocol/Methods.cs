// The method table's plumbing. The table itself — every request (name, params class, result class)
// and every notification (name, params class) — is generated (Generated/Methods.g.cs): any request
// of the schema is sent typed through `CodivaClient.Request(Methods.X, params)`. What is hand-made
// here is which notifications the client takes; the contract test holds every other one of the
// schema to a reason.
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

    public static partial class Notifications
    {
        /// The notifications the store applies (read as their params class, a `Sequenced`).
        public static readonly HashSet<string> Taken = new HashSet<string>
        {
            SessionStatus, SessionLog, SessionStream, SessionPermission, SessionQuestion, SessionPromptClosed,
            SessionModel, SessionPermissionMode, SessionConnected, SessionAgentSession, SessionTodos,
            SessionUsage, SessionMcpServers, SessionSubagent, SessionAgentExited, SessionAgentSwitched,
            SessionUpdated, SessionRemoved, RepoBase, Warning, GroupUpdated, GroupRemoved,
        };

        /// `parameters` of `method` as the store takes them; a notification the client does not
        /// take, or params that are no object, read as an `OtherEvent` (its `seq`, if any, counts).
        public static Sequenced Read(string method, object parameters)
        {
            Type type;
            if (Taken.Contains(method) && ParamsTypes.TryGetValue(method, out type)
                && Wire.FromJson(type, parameters) is Sequenced typed) return typed;
            return new OtherEvent { Method = method, Params = parameters, Seq = Codiva.Json.JsonRead.Long(parameters, "seq") ?? 0 };
        }
    }
}
