// What a session the panel creates is given: it runs in place in the Unity project (no
// worktree: the Editor has the project open) and gets the panel's Ops server as an HTTP MCP
// server with its bearer header. codiva writes that to a private config file (0600) passed to
// the agent by path, so the token is never on a command line. The script validation gate's tool
// rules keep the agent from writing scripts into `Assets/` (it stages them: `ScriptGate`); what
// the other features add comes after them (PanelSessionInputs).
using System.Collections.Generic;
using Codiva.Protocol;
using Codiva.Unity;

namespace Codiva.Ops
{
    /// What the features give a new panel session; the Editor gathers them (from the disk,
    /// EditorPrefs, the settings), PanelSession.Create puts them together.
    public sealed class PanelSessionInputs
    {
        /// uLoop in the project (null: not looked for) and whether the user turned its preset on.
        public UloopPresence Uloop;
        public bool UloopPreset;
        /// The extension profiles of the project's packages (ExtensionProfiles.Detect).
        public IEnumerable<Profile> ExtensionProfiles;
        /// Claude Code's files say the Unity official plugin is installed (UnityPlugin.Installed).
        public bool UnityPluginInstalled;
        /// The project's own profiles approved and verified now (ProjectProfilesModel.ForSession).
        public IEnumerable<ProjectProfile> ProjectProfiles;
        /// The images attached to the first message.
        public List<ImageInput> Images;
    }

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

        /// A new panel session's params: the gate's (above), then what each feature gives, in
        /// this order — uLoop's steering lines and, only with its preset on, its four allow rules;
        /// what the agent is told of the project's packages (the extension profiles); the Unity
        /// official plugin's lines when it is installed; the project's own profiles the user
        /// approved — each block after the one before (`CreateParams.AppendInstructions`), and the
        /// images. The gate's DisallowedTools stay; AllowedTools is only what the uLoop preset adds.
        public static CreateParams Create(string prompt, string projectDir, McpServer ops, PanelSessionInputs inputs)
        {
            var create = Create(prompt, projectDir, ops);
            if (inputs == null) return create;
            create = Uloop.Apply(create, inputs.Uloop, inputs.UloopPreset);
            create = ExtensionProfiles.Apply(create, inputs.ExtensionProfiles);
            create = UnityPlugin.Apply(create, inputs.UnityPluginInstalled);
            create = ProjectProfiles.Apply(create, inputs.ProjectProfiles);
            create.Images = inputs.Images;
            return create;
        }
    }
}
