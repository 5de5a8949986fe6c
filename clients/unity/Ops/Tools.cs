// The tools the Ops server offers: a registry grouped by modules, main-thread dispatch with a
// wait that turns into a job, and the destructive-tool gate (confirm / dry_run).
using System;
using System.Collections.Generic;
using Codiva.Json;

namespace Codiva.Ops
{
    public enum ThreadAffinity { Any, MainThread }

    /// What a tool call gave back: MCP content blocks and whether it failed.
    public sealed class ToolResult
    {
        public readonly List<object> Content = new List<object>();
        public bool IsError;

        public static ToolResult Text(string text, bool isError = false)
        {
            var result = new ToolResult { IsError = isError };
            result.AddText(text);
            return result;
        }

        public ToolResult AddText(string text)
        {
            Content.Add(new Dictionary<string, object> { { "type", "text" }, { "text", text } });
            return this;
        }

        public ToolResult AddImage(string mimeType, byte[] data)
        {
            Content.Add(new Dictionary<string, object> { { "type", "image" }, { "mimeType", mimeType }, { "data", Convert.ToBase64String(data) } });
            return this;
        }

        public Dictionary<string, object> ToJson()
        {
            // No structuredContent: Claude Code 2.1.332 hands the model the structured form instead
            // of the text when both are present (measured), and the text is what guides it.
            return new Dictionary<string, object> { { "content", Content }, { "isError", IsError } };
        }
    }

    /// A tool's input could not be used: the message goes back to the agent as a tool error.
    public sealed class ToolError : Exception
    {
        public ToolError(string message) : base(message) { }
    }

    public interface ITool
    {
        /// The MCP tool name (`ping`); the agent sees `mcp__<server>__<name>`.
        string Name { get; }
        /// The module it belongs to (`core`, `scene`, `assets`, `editor`, …).
        string Module { get; }
        /// The first line is what a deferred tool list shows: say what the tool does.
        string Description { get; }
        /// The JSON Schema of its arguments (an `object` schema).
        Dictionary<string, object> InputSchema { get; }
        ThreadAffinity Affinity { get; }
        bool Destructive { get; }
        ToolResult Call(Dictionary<string, object> arguments);
    }

    /// Argument helpers for tools.
    public static class Args
    {
        public static string RequireString(Dictionary<string, object> args, string name)
        {
            var value = JsonRead.Str(args, name);
            if (string.IsNullOrEmpty(value)) throw new ToolError("`" + name + "` (a non-empty string) is required");
            return value;
        }

        public static bool Flag(Dictionary<string, object> args, string name) => JsonRead.Get(args, name) is bool b && b;

        public static Dictionary<string, object> Schema(params object[] nameTypeDescription)
        {
            var properties = new Dictionary<string, object>();
            for (var i = 0; i + 2 < nameTypeDescription.Length; i += 3)
                properties[(string)nameTypeDescription[i]] = new Dictionary<string, object>
                    { { "type", nameTypeDescription[i + 1] }, { "description", nameTypeDescription[i + 2] } };
            return new Dictionary<string, object> { { "type", "object" }, { "properties", properties } };
        }

        public static Dictionary<string, object> Require(this Dictionary<string, object> schema, params string[] names)
        {
            schema["required"] = new List<object>(names);
            return schema;
        }
    }

    /// A tool that destroys or overwrites something. It refuses unless called with `confirm:true`,
    /// answering with what it would do; `dry_run:true` only previews (and wins over confirm).
    public abstract class DestructiveTool : ITool
    {
        public abstract string Name { get; }
        public abstract string Module { get; }
        public abstract string Description { get; }
        public virtual ThreadAffinity Affinity => ThreadAffinity.MainThread;
        public bool Destructive => true;

        /// The tool's own arguments (confirm and dry_run are added).
        protected abstract Dictionary<string, object> Arguments { get; }
        /// What the call would destroy (the blast radius), from the current state; throws ToolError
        /// when there is nothing to do.
        protected abstract string Preview(Dictionary<string, object> arguments);
        protected abstract ToolResult Execute(Dictionary<string, object> arguments);

        public Dictionary<string, object> InputSchema
        {
            get
            {
                var schema = Arguments;
                var properties = (Dictionary<string, object>)schema["properties"];
                properties["confirm"] = new Dictionary<string, object> { { "type", "boolean" }, { "description", "true to do it; without it the call is refused and says what it would do" } };
                properties["dry_run"] = new Dictionary<string, object> { { "type", "boolean" }, { "description", "true to only preview what it would do" } };
                return schema;
            }
        }

        public ToolResult Call(Dictionary<string, object> arguments)
        {
            if (Args.Flag(arguments, "dry_run"))
                return ToolResult.Text("dry run: " + Name + " would " + Preview(arguments) + ". Nothing was changed.");
            if (!Args.Flag(arguments, "confirm"))
                return ToolResult.Text("refused: " + Name + " is destructive and was called without confirm:true. It would " +
                    Preview(arguments) + ". Nothing was changed. Ask the user, then call it again with confirm:true (or dry_run:true to preview).", true);
            return Execute(arguments);
        }
    }

    /// The tools by name, and which modules are enabled: `tools/list` shows the enabled ones and
    /// `tools/call` checks again (a module can be switched off while the agent runs).
    public sealed class ToolRegistry
    {
        readonly Dictionary<string, ITool> tools = new Dictionary<string, ITool>();
        readonly List<string> order = new List<string>();
        readonly HashSet<string> enabled = new HashSet<string>();

        public void Add(ITool tool)
        {
            lock (tools)
            {
                if (tools.ContainsKey(tool.Name)) throw new ArgumentException("two tools named " + tool.Name);
                tools[tool.Name] = tool;
                order.Add(tool.Name);
            }
        }

        public void Enable(string module, bool on = true)
        {
            lock (tools) { if (on) enabled.Add(module); else enabled.Remove(module); }
        }

        public bool IsEnabled(string module) { lock (tools) return enabled.Contains(module); }

        public List<ITool> Listed()
        {
            lock (tools)
            {
                var list = new List<ITool>();
                foreach (var name in order) if (enabled.Contains(tools[name].Module)) list.Add(tools[name]);
                return list;
            }
        }

        /// The tool of that name, enabled or not (null: none).
        public ITool Named(string name)
        {
            lock (tools)
            {
                ITool tool;
                return tools.TryGetValue(name, out tool) ? tool : null;
            }
        }

        /// The tool, if it exists and its module is enabled.
        public ITool Find(string name)
        {
            lock (tools)
            {
                ITool tool;
                return tools.TryGetValue(name, out tool) && enabled.Contains(tool.Module) ? tool : null;
            }
        }
    }
}
