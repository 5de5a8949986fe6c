// What a session the panel creates is given: it runs in place in the Unity project (no
// worktree: the Editor has the project open) and gets the panel's Ops server as an HTTP MCP
// server with its bearer header. codiva writes that to a private config file (0600) passed to
// the agent by path, so the token is never on a command line. The script validation gate's tool
// rules keep the agent from writing scripts into `Assets/` (it stages them: `ScriptGate`).
using System.Collections.Generic;
using Codiva.Protocol;

namespace Codiva.Ops
{
    public static class PanelSession
    {
        /// The name the Ops server has in the agent (its tools are `mcp__unity-ops__<tool>`).
        public const string OpsServerName = "unity-ops";

        /// The Ops server as `session/create`'s `mcp_servers` entry.
        public static McpServerConfig McpEntry(McpServer ops) =>
            McpServerConfig.Http(ops.Url, new Dictionary<string, string> { { "Authorization", "Bearer " + ops.Token } });

        /// `session/create`'s params for a prompt in the project at `projectDir` (absolute).
        /// No tool is allowed in advance (the `ask` policy): the agent asks, the user answers. Scripts under
        /// `Assets/` are refused to the agent's own file tools and go through `scripts_commit`.
        public static CreateParams Create(string prompt, string projectDir, McpServer ops) => new CreateParams
        {
            Prompt = prompt,
            InPlace = projectDir,
            McpServers = new Dictionary<string, McpServerConfig> { { OpsServerName, McpEntry(ops) } },
            DisallowedTools = new List<string>(ScriptGate.DisallowedTools),
            AppendSystemPrompt = ScriptGate.Instructions(OpsServerName),
            // Asked, whatever codiva's default for new sessions is: only the user's pick in the
            // panel (AutoApprove) lets requests through without asking.
            ApprovalPolicy = new ApprovalPolicy { Mode = Known.ApprovalPolicy.Ask },
        };

        /// The same, with uLoop (Codiva.Unity.Uloop): when it is usable in the project, its steering
        /// lines after the gate's instructions and, only when the user turned the preset on, its
        /// four allow rules (the gate's refusals stay).
        public static CreateParams Create(string prompt, string projectDir, McpServer ops, Codiva.Unity.UloopPresence uloop, bool uloopPreset) =>
            Codiva.Unity.Uloop.Apply(Create(prompt, projectDir, ops), uloop, uloopPreset);
    }
}
