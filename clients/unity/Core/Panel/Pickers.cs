// The model, permission-mode and agent pickers, from the protocol's lists: the session's agent's
// model catalog (`session/connected`'s `agent.models`; before it, `agents/list`'s
// `model_aliases`), the protocol's neutral permission modes, and `agents/list`. Each picker's
// choice becomes the request's params (`session/setModel`, `session/setPermissionMode`,
// `session/setAgent`); a picker whose agent cannot change the value live is not enabled.
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Protocol;

namespace Codiva.Panel
{
    public sealed class PickerItem
    {
        /// What the request names (a model id, a mode, an agent id; null: the agent's default model).
        public string Value;
        /// The item's words (plain).
        public string Label;
        /// A second line (plain; may be empty).
        public string Detail;
        public bool Current;
        /// Chosen, it does something (an agent that is not installed cannot be picked).
        public bool Enabled = true;
        /// Shown as a warning (a mode that lets everything through).
        public bool Dangerous;
    }

    public static class Pickers
    {
        /// The model picker of a session: the agent's default, then its catalog (current: the
        /// view's `model_entry`); without a catalog, the aliases `agents/list` gives.
        public static List<PickerItem> Models(SessionView view, AgentAvailability agent, Language language)
        {
            var items = new List<PickerItem>
            {
                new PickerItem { Value = null, Label = Strings.Get(Str.DefaultModel, language), Detail = "", Current = view.Model == null },
            };
            var catalog = view.Agent?.Models;
            if (catalog != null && catalog.Count > 0)
            {
                foreach (var model in catalog)
                {
                    // `default` is the agent's own word for its default: the first item says it.
                    if (model?.Id == null || model.Id == "default") continue;
                    items.Add(new PickerItem
                    {
                        Value = model.Id,
                        Label = Words.OneLine(string.IsNullOrEmpty(model.DisplayName) ? model.Id : model.DisplayName, 60),
                        Detail = Words.OneLine(model.Description, 120),
                        Current = view.ModelEntry == model.Id,
                    });
                }
                return items;
            }
            foreach (var alias in agent?.ModelAliases ?? new List<string>())
            {
                if (alias == null || alias == "default") continue;
                items.Add(new PickerItem { Value = alias, Label = Words.OneLine(alias, 60), Detail = "", Current = view.Model == alias });
            }
            return items;
        }

        /// Whether the model of a running session can be changed (`set_model`).
        public static bool CanSetModel(AgentCapabilities capabilities) => capabilities != null && capabilities.SetModel;
        public static bool CanSetMode(AgentCapabilities capabilities) => capabilities != null && capabilities.SetMode;

        public static ModelParams ChooseModel(string sessionId, PickerItem item) => new ModelParams { SessionId = sessionId, Model = item.Value };

        /// The protocol's neutral modes (`other` is a reported mode with no neutral name: never
        /// offered); the server refuses one the session's agent lacks.
        public static readonly string[] Modes =
        {
            Known.PermissionMode.Default, Known.PermissionMode.AcceptEdits, Known.PermissionMode.Plan,
            Known.PermissionMode.Auto, Known.PermissionMode.DontAsk, Known.PermissionMode.BypassPermissions,
        };

        public static List<PickerItem> PermissionModes(SessionView view, Language language) =>
            Modes.Select(mode => new PickerItem
            {
                Value = mode,
                Label = ModeWords(mode, language),
                Detail = mode,
                Current = view.PermissionMode == mode,
                Dangerous = mode == Known.PermissionMode.BypassPermissions,
            }).ToList();

        public static ModeParams ChooseMode(string sessionId, PickerItem item) => new ModeParams { SessionId = sessionId, Mode = item.Value };

        /// A mode in words; one this version does not know as itself.
        public static string ModeWords(string mode, Language language)
        {
            switch (mode)
            {
                case Known.PermissionMode.Default: return Strings.Get(Str.ModeDefault, language);
                case Known.PermissionMode.AcceptEdits: return Strings.Get(Str.ModeAcceptEdits, language);
                case Known.PermissionMode.Plan: return Strings.Get(Str.ModePlan, language);
                case Known.PermissionMode.Auto: return Strings.Get(Str.ModeAuto, language);
                case Known.PermissionMode.DontAsk: return Strings.Get(Str.ModeDontAsk, language);
                case Known.PermissionMode.BypassPermissions: return Strings.Get(Str.ModeBypass, language);
                default: return Words.OneLine(mode, 40);
            }
        }

        /// The agent picker from `agents/list`: installed agents first (as listed), each one not
        /// installed disabled with its install command; `current` is the session's agent (null:
        /// for a new session, the default is marked).
        public static List<PickerItem> Agents(IEnumerable<AgentAvailability> agents, string current, Language language)
        {
            var items = new List<PickerItem>();
            foreach (var agent in agents ?? Enumerable.Empty<AgentAvailability>())
            {
                if (agent?.Id == null) continue;
                var ready = agent.Status == Known.AgentStatus.Ready;
                var detail = ready
                    ? (agent.Default ? Strings.Get(Str.AgentDefault, language) : "") + (agent.Version != null ? (agent.Default ? " · " : "") + Words.OneLine(agent.Version, 40) : "")
                    : Strings.Format(Str.AgentNotInstalled, language, Words.OneLine(agent.Install ?? "", 120));
                items.Add(new PickerItem
                {
                    Value = agent.Id,
                    Label = Words.OneLine(agent.Name ?? agent.Id, 60),
                    Detail = detail,
                    Current = current != null ? agent.Id == current : agent.Default,
                    Enabled = ready,
                });
            }
            return items.OrderBy(i => i.Enabled ? 0 : 1).ToList();
        }

        /// `session/setAgent` for an installed agent (null for one that cannot be picked).
        public static AgentParams ChooseAgent(string sessionId, PickerItem item) =>
            item.Enabled ? new AgentParams { SessionId = sessionId, Agent = item.Value } : null;
    }
}
