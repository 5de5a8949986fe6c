// Auto-approve levels: which permission requests of a panel session codiva allows without asking,
// as the user picks it in the panel — never by a default (a panel session is created with the
// `ask` policy, whatever codiva's default for new sessions is) and never wider than the level
// picked. A level is codiva's approval policy (`session/setApprovalPolicy`), not a second
// mechanism: codiva applies it to each request, answers "allow once", logs the note
// `allowed_by_policy` that the conversation shows, re-evaluates the requests already waiting,
// and never answers a question (AskUserQuestion is a question prompt, not a permission).
//
// * Ask: every request is asked.
// * Unity tools that change nothing: the Ops tools that say so (`IChangesNothing`), by name.
// * … or that Undo reverts: those, and the Ops tools whose every change Undo reverts
//   (`IRevertedByUndo` without `IChangesOutsideUndo`). Destructive tools are never in a level
//   but the last: they are asked with what they would do.
// * All tools: codiva's `allow_all` — commands and file edits too (questions are still asked).
//
// The script validation gate holds at every level: its rules (`Edit(Assets/**/*.cs)`, …) are
// the agent's own refusals, applied before a permission is asked (docs/protocol/claude.md,
// "Tool rules"), so no policy ever sees those writes. The tools are listed by name when the level
// is picked: a tool added later is asked until the user picks again.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Unity;

namespace Codiva.Ops
{
    public enum AutoApproveLevel { Ask, UnityToolsThatChangeNothing, UnityToolsUndoReverts, AllTools }

    public static class AutoApprove
    {
        public static readonly AutoApproveLevel[] Levels =
        {
            AutoApproveLevel.Ask, AutoApproveLevel.UnityToolsThatChangeNothing, AutoApproveLevel.UnityToolsUndoReverts, AutoApproveLevel.AllTools,
        };

        /// Whether `level` lets `tool` (an Ops tool) through without asking.
        public static bool Approves(AutoApproveLevel level, ITool tool)
        {
            if (tool == null) return false;
            if (level == AutoApproveLevel.AllTools) return true;
            if (tool.Destructive) return false;
            // As ToolEffects reads them: "changes nothing" is the more specific word (a Unity tool
            // is reverted by Undo unless it says otherwise); "outside Undo" always wins.
            if (tool is IChangesOutsideUndo) return false;
            var changesNothing = tool is IChangesNothing;
            switch (level)
            {
                case AutoApproveLevel.UnityToolsThatChangeNothing: return changesNothing;
                case AutoApproveLevel.UnityToolsUndoReverts: return changesNothing || tool is IRevertedByUndo;
                default: return false;
            }
        }

        /// codiva's approval policy for `level` over the Ops tools enabled now (named as the agent
        /// names them: `mcp__<server>__<tool>`).
        public static ApprovalPolicy Policy(AutoApproveLevel level, ToolRegistry registry, string serverName = PanelSession.OpsServerName)
        {
            switch (level)
            {
                case AutoApproveLevel.AllTools:
                    return new ApprovalPolicy { Mode = Known.ApprovalPolicy.AllowAll };
                case AutoApproveLevel.UnityToolsThatChangeNothing:
                case AutoApproveLevel.UnityToolsUndoReverts:
                    return new ApprovalPolicy
                    {
                        Mode = Known.ApprovalPolicy.Rules,
                        Rules = registry.Listed().Where(tool => Approves(level, tool))
                            .Select(tool => new ApprovalRule { Tool = "mcp__" + serverName + "__" + tool.Name })
                            .OrderBy(rule => rule.Tool, StringComparer.Ordinal).ToList(),
                    };
                default:
                    return new ApprovalPolicy { Mode = Known.ApprovalPolicy.Ask };
            }
        }

        /// What picking `level` for the session sends (`session/setApprovalPolicy`).
        public static ApprovalParams Choose(string sessionId, AutoApproveLevel level, ToolRegistry registry) =>
            new ApprovalParams { SessionId = sessionId ?? throw new ArgumentNullException(nameof(sessionId)), Policy = Policy(level, registry) };

        public static string Words(AutoApproveLevel level, Language language)
        {
            switch (level)
            {
                case AutoApproveLevel.UnityToolsThatChangeNothing: return Strings.Get(Str.AutoApproveReadOnly, language);
                case AutoApproveLevel.UnityToolsUndoReverts: return Strings.Get(Str.AutoApproveUndoable, language);
                case AutoApproveLevel.AllTools: return Strings.Get(Str.AutoApproveAllTools, language);
                default: return Strings.Get(Str.AutoApproveAsk, language);
            }
        }

        /// The picker's items, the level `current` checked (null: not set from this panel — none
        /// checked, and the button says so). The last one is marked dangerous.
        public static List<PickerItem> Items(AutoApproveLevel? current, ToolRegistry registry, Language language) =>
            Levels.Select(level => new PickerItem
            {
                Value = level.ToString(),
                Label = Words(level, language),
                Detail = level == AutoApproveLevel.Ask || level == AutoApproveLevel.AllTools ? ""
                    : Words(string.Join(", ", Policy(level, registry).Rules.Select(r => r.Tool.Substring(r.Tool.LastIndexOf("__", StringComparison.Ordinal) + 2)))),
                Current = current == level,
                Dangerous = level == AutoApproveLevel.AllTools,
            }).ToList();

        static string Words(string tools) => Codiva.Panel.Words.OneLine(tools, 200);

        /// The level an item of `Items` stands for.
        public static AutoApproveLevel LevelOf(PickerItem item)
        {
            AutoApproveLevel level;
            if (item == null || !Enum.TryParse(item.Value, out level) || !Levels.Contains(level)) throw new ArgumentException("not an auto-approve item");
            return level;
        }

        /// The button's words: `Auto-approve: <level>` (not set: says so).
        public static string ButtonWords(AutoApproveLevel? current, Language language) =>
            Strings.Get(Str.AutoApprove, language) + ": " + (current.HasValue ? Words(current.Value, language) : Strings.Get(Str.AutoApproveUnknown, language));
    }

    /// The level the user picked for each session, remembered once codiva took it (the policy
    /// itself is codiva's: it holds without the panel, but no snapshot tells it back). A file
    /// written atomically (the Editor's: `Library/Codiva/auto-approve.json`), so a domain reload or
    /// a restart of the Editor shows what was picked. A session the panel never set shows as not
    /// set, never as "Ask": the panel does not claim a policy it did not send.
    public sealed class AutoApproveChoices
    {
        readonly string file;
        readonly Dictionary<string, AutoApproveLevel> levels = new Dictionary<string, AutoApproveLevel>();

        /// Why the file could not be read (it was set aside); null.
        public string Problem { get; private set; }

        public AutoApproveChoices(string file)
        {
            this.file = file;
            try
            {
                var text = AtomicFile.Read(file);
                if (text == null) return;
                var root = JsonText.Parse(text) as Dictionary<string, object> ?? throw new FormatException("not an object");
                foreach (var pair in root)
                {
                    AutoApproveLevel level;
                    if (!(pair.Value is string name) || !Enum.TryParse(name, out level) || !AutoApprove.Levels.Contains(level))
                        throw new FormatException("no level: " + pair.Key);
                    levels[pair.Key] = level;
                }
            }
            catch (Exception e) when (e is JsonException || e is FormatException)
            {
                levels.Clear();
                Problem = file + " could not be read (" + e.Message + "); it was set aside";
                AtomicFile.SetAside(file);
            }
        }

        /// The level picked for `sessionId`; null: not set from this panel.
        public AutoApproveLevel? Of(string sessionId)
        {
            AutoApproveLevel level;
            return sessionId != null && levels.TryGetValue(sessionId, out level) ? level : (AutoApproveLevel?)null;
        }

        /// codiva took `level` for `sessionId` (call it from the request's answer, not before).
        public void Set(string sessionId, AutoApproveLevel level)
        {
            levels[sessionId] = level;
            Save();
        }

        /// A session that is gone.
        public void Forget(string sessionId)
        {
            if (levels.Remove(sessionId)) Save();
        }

        void Save()
        {
            var root = new Dictionary<string, object>();
            foreach (var pair in levels) root[pair.Key] = pair.Value.ToString();
            AtomicFile.Write(file, JsonText.Write(root));
        }
    }
}
