// A permission request as the panel's card: Allow (once), Always ▾ (each scope the agent offers,
// worded from the option's `scope`), Deny with the reason the user types, Deny and stop, and
// "N more waiting". The answer sent is exactly the option the user picked, named by its id
// (docs/serve-api.md, `session/respondPermission`): nothing here picks one by default — there
// is no default option, an option the request does not offer cannot be answered, and a card
// that offers no allow-once option has no Allow button.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Json;
using Codiva.Protocol;

namespace Codiva.Panel
{
    public sealed class PermissionChoice
    {
        /// The option's id: what the answer names.
        public string OptionId;
        public string Kind;
        /// The words on the button or menu item (plain).
        public string Words;
    }

    public sealed class PermissionCard
    {
        public readonly string SessionId;
        public readonly Prompt Prompt;
        public string RequestId => Prompt.RequestId;
        /// The tool's name for people (an MCP tool as `server: tool`).
        public readonly string Tool;
        /// What it works on, one line.
        public readonly string Line;
        /// What the call is for, in the agent's words (plain, one line; may be empty).
        public readonly string Description;
        /// An edit's changed lines.
        public readonly List<DiffLine> Diff = new List<DiffLine>();
        /// The request's allow-once option (null: not offered, no Allow button).
        public readonly PermissionChoice AllowOnce;
        /// The allow-always options, in the agent's order (the Always ▾ menu; empty: no menu).
        public readonly List<PermissionChoice> Always = new List<PermissionChoice>();
        public readonly PermissionChoice Deny;
        public readonly PermissionChoice DenyAndStop;
        /// Other permission requests of the session waiting behind this one.
        public readonly int MoreWaiting;

        PermissionCard(string sessionId, Prompt prompt, int moreWaiting, Language language)
        {
            SessionId = sessionId;
            Prompt = prompt;
            MoreWaiting = moreWaiting;
            Tool = ToolDescriber.Title(prompt.Tool, prompt.Title);
            Line = ToolDescriber.Line(prompt.Tool, null, prompt.Input);
            // The request's description, else the one in the tool's input (Bash's), else its reason.
            var description = prompt.Description;
            if (string.IsNullOrWhiteSpace(description)) description = JsonRead.Str(prompt.Input, "description");
            if (string.IsNullOrWhiteSpace(description)) description = prompt.Reason;
            Description = Words.OneLine(description, 200);
            if (prompt.Content != null)
            {
                var diff = prompt.Content.FirstOrDefault(c => c != null && c.Type == Known.ToolContent.Diff);
                if (diff != null) Diff.AddRange(LineDiff.Of(diff.Old, diff.New));
            }
            foreach (var option in prompt.Options ?? new List<PermissionOption>())
            {
                if (option?.Id == null) continue;
                var choice = new PermissionChoice { OptionId = option.Id, Kind = option.Kind, Words = OptionWords(option, language) };
                switch (option.Kind)
                {
                    case Known.PermissionOptionKind.AllowOnce: if (AllowOnce == null) AllowOnce = choice; break;
                    case Known.PermissionOptionKind.AllowAlways: Always.Add(choice); break;
                    case Known.PermissionOptionKind.Deny: if (Deny == null) Deny = choice; break;
                    case Known.PermissionOptionKind.DenyAndStop: if (DenyAndStop == null) DenyAndStop = choice; break;
                    // An option kind of a later version: not offered (its meaning is unknown).
                }
            }
        }

        /// The card for the oldest permission request of the session (null: none waits).
        public static PermissionCard Of(string sessionId, SessionView view, Language language)
        {
            var waiting = view.Prompts.Where(p => p != null && p.Kind == Known.Prompt.Permission).ToList();
            return waiting.Count == 0 ? null : new PermissionCard(sessionId, waiting[0], waiting.Count - 1, language);
        }

        /// The card's heading: "Allow Bash?" with the line under it.
        public string RichHeading(Language language)
        {
            var rich = "<b>" + RichText.Escape(Strings.Format(Str.PermissionAsks, language, Tool)) + "</b>";
            if (Line.Length > 0) rich += "\n" + RichText.Escape(Line);
            if (Description.Length > 0 && Description != Line) rich += "\n<i>" + RichText.Escape(Description) + "</i>";
            return rich;
        }

        /// "2 more waiting", or "" when none does.
        public string MoreWaitingWords(Language language) => MoreWaiting > 0 ? Strings.Format(Str.MoreWaiting, language, MoreWaiting) : "";

        /// The answer that allows this call once.
        public PermissionParams Allow() => Answer(AllowOnce ?? throw new InvalidOperationException("the request offers no allow-once option"), null);

        /// The answer that picks allow-always scope `index` of `Always`.
        public PermissionParams AllowAlways(int index)
        {
            if (index < 0 || index >= Always.Count) throw new ArgumentOutOfRangeException(nameof(index), "the request offers " + Always.Count + " allow-always options");
            return Answer(Always[index], null);
        }

        /// The answer that denies, with the reason the user typed (the model reads it; blank: none).
        public PermissionParams Refuse(string reason) => Answer(Deny ?? throw new InvalidOperationException("the request offers no deny option"), reason);

        /// Deny and end the turn, with the typed reason.
        public PermissionParams RefuseAndStop(string reason) => Answer(DenyAndStop ?? throw new InvalidOperationException("the request offers no deny-and-stop option"), reason);

        /// The answer naming `choice`, one of this card's options (another is refused here, as
        /// the server refuses an id the request does not offer).
        public PermissionParams Answer(PermissionChoice choice, string reason)
        {
            if (choice == null || !(Prompt.Options ?? new List<PermissionOption>()).Any(o => o != null && o.Id == choice.OptionId))
                throw new ArgumentException("not an option of request " + RequestId, nameof(choice));
            var denies = choice.Kind == Known.PermissionOptionKind.Deny || choice.Kind == Known.PermissionOptionKind.DenyAndStop;
            var message = denies && !string.IsNullOrWhiteSpace(reason) ? reason.Trim() : null;
            return new PermissionParams { SessionId = SessionId, RequestId = RequestId, Option = choice.OptionId, Message = message };
        }

        /// An option in the panel's language: allow-always from its `scope` (docs/serve-api.md:
        /// tool, mode, rules, directories, with the place it is kept); a scope this version does
        /// not know is worded by the option's own (English) label.
        public static string OptionWords(PermissionOption option, Language language)
        {
            switch (option.Kind)
            {
                case Known.PermissionOptionKind.AllowOnce: return Strings.Get(Str.Allow, language);
                case Known.PermissionOptionKind.Deny: return Strings.Get(Str.Deny, language);
                case Known.PermissionOptionKind.DenyAndStop: return Strings.Get(Str.DenyAndStop, language);
                case Known.PermissionOptionKind.AllowAlways: return ScopeWords(option, language);
                default: return Words.OneLine(option.Label, 120);
            }
        }

        static string ScopeWords(PermissionOption option, Language language)
        {
            var scope = option.Scope;
            string what;
            switch (scope?.Type)
            {
                case Known.PermissionScope.Tool:
                    // The whole tool for the session.
                    return Words.OneLine(Strings.Format(Str.ScopeTool, language, ToolDescriber.Title(scope.Tool, null)), 160);
                case Known.PermissionScope.Mode:
                    what = Strings.Format(Str.ScopeMode, language, Pickers.ModeWords(scope.Mode, language));
                    break;
                case Known.PermissionScope.Rules:
                    if (scope.Rules == null || scope.Rules.Count == 0 || scope.Behavior != Known.RuleBehavior.Allow) return Words.OneLine(option.Label, 160);
                    // Every rule of the suggestion, never only the first.
                    what = Strings.Format(Str.ScopeRules, language, string.Join(", ", scope.Rules));
                    break;
                case Known.PermissionScope.Directories:
                    if (scope.Directories == null || scope.Directories.Count == 0) return Words.OneLine(option.Label, 160);
                    what = Strings.Format(Str.ScopeDirectories, language, string.Join(", ", scope.Directories));
                    break;
                default:
                    return Words.OneLine(option.Label, 160);
            }
            var place = PlaceWords(scope.Place, language);
            return Words.OneLine(place == null ? what : Strings.Format(Str.ScopeWithPlace, language, what, place), 160);
        }

        /// Where an always-allow is kept (`session`, `local`, `project`, `user`, `command_line`, or
        /// `{"other": "…"}`: its words).
        static string PlaceWords(object place, Language language)
        {
            switch (place as string)
            {
                case Known.ScopePlace.Session: return Strings.Get(Str.PlaceSession, language);
                case Known.ScopePlace.Local: return Strings.Get(Str.PlaceLocal, language);
                case Known.ScopePlace.Project: return Strings.Get(Str.PlaceProject, language);
                case Known.ScopePlace.User: return Strings.Get(Str.PlaceUser, language);
                case Known.ScopePlace.CommandLine: return Strings.Get(Str.PlaceCommandLine, language);
            }
            var other = JsonRead.Str(place, "other");
            return string.IsNullOrEmpty(other) ? null : Words.OneLine(other, 40);
        }
    }
}
