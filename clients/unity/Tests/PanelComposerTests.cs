// The composer's and the header's models: slash-command completion from the agent's catalog,
// the status bar (context meter, tokens, cost only off a subscription, plan usage, model), and
// the model / permission-mode / agent pickers with the requests they make.
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Panel;
using Codiva.Protocol;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class PanelComposerTests
    {
        static readonly List<CommandInfo> Catalog = new List<CommandInfo>
        {
            new CommandInfo { Name = "compact", ArgumentHint = "<instructions>", Description = "Clear history but keep a summary" },
            new CommandInfo { Name = "/context", Description = "Show context usage" },
            new CommandInfo { Name = "review", Description = "Review a <pull request>" },
            new CommandInfo { Name = "pr-comments", Description = "Get comments" },
            new CommandInfo { Name = "compact", Description = "a duplicate" },
            new CommandInfo { Name = "bad name", Description = "has a space" },
        };

        [Test]
        public void Slash_opens_the_agents_commands_prefix_matches_first()
        {
            var slash = new SlashCompletion(Catalog);
            slash.Update("/");
            Assert.AreEqual(new[] { "compact", "context", "pr-comments", "review" }, slash.Items.Select(i => i.Name).ToArray());
            slash.Update("/co");
            // Prefix matches, then those that contain it.
            Assert.AreEqual(new[] { "compact", "context", "pr-comments" }, slash.Items.Select(i => i.Name).ToArray());
            Assert.AreEqual("/compact <instructions>  Clear history but keep a summary", PanelRich.Shown(slash.Items[0].Rich));
            slash.Move(-1);
            Assert.AreEqual(2, slash.Selected);
            slash.Move(1);
            Assert.AreEqual(0, slash.Selected);
            slash.Move(1);
            Assert.AreEqual("/context ", slash.Accept());
            Assert.IsFalse(slash.Open);
            // Past the command's name (a space), in the middle of text, or no `/`: no popup.
            slash.Update("/compact now");
            Assert.IsFalse(slash.Open);
            slash.Update("hello /co");
            Assert.IsFalse(slash.Open);
            slash.Update("/zzz");
            Assert.IsFalse(slash.Open);
            Assert.IsNull(slash.Accept());
            // Esc closes it until the text changes.
            slash.Update("/re");
            Assert.AreEqual("Review a <pull request>", PanelRich.Shown(slash.Items.Single().Rich).Substring("/review  ".Length));
            slash.Dismiss("/re");
            slash.Update("/re");
            Assert.IsFalse(slash.Open);
            slash.Update("/rev");
            Assert.IsTrue(slash.Open);
            // No catalog (the agent has not connected): nothing.
            var none = new SlashCompletion(null);
            none.Update("/");
            Assert.IsFalse(none.Open);
        }

        static SessionView Used(long used, long? window, double? cost, Account account)
        {
            return new SessionView
            {
                Model = "claude-sonnet-4-5-20250929",
                ModelEntry = "sonnet",
                Agent = new AgentInfo { Account = account, Models = new List<ModelChoice> { new ModelChoice { Id = "sonnet", DisplayName = "Sonnet 4.5" } } },
                Usage = new UsageView
                {
                    ContextUsed = used,
                    ContextWindow = window,
                    CostUsd = cost,
                    Tokens = new TokenUsage { Input = 1000, Output = 200, CacheRead = 10000, CacheCreation = 1300 },
                },
            };
        }

        [Test]
        public void The_status_bar_shows_the_meter_tokens_cost_only_off_a_subscription_and_the_model()
        {
            var apiKey = new Account { ApiKeySource = "ANTHROPIC_API_KEY", TokenSource = "none" };
            var bar = StatusBar.Of(Used(84000, 200000, 0.1234, apiKey), null, 0, Language.En);
            Assert.IsTrue(bar.ContextShown);
            Assert.AreEqual(42, bar.ContextPercent);
            Assert.AreEqual(MeterLevel.Low, bar.ContextLevel);
            Assert.AreEqual(12500, bar.Tokens);
            Assert.AreEqual("42% · 84k/200k · 12.5k tokens · $0.12 · Sonnet 4.5", PanelRich.Shown(bar.Rich()));
            Assert.AreEqual("42% · 84k/200k · 12.5k トークン · $0.12 · Sonnet 4.5", PanelRich.Shown(StatusBar.Of(Used(84000, 200000, 0.1234, apiKey), null, 0, Language.Ja).Rich()));
            Assert.AreEqual(MeterLevel.Medium, StatusBar.Of(Used(120000, 200000, null, null), null, 0, Language.En).ContextLevel);
            Assert.AreEqual(MeterLevel.High, StatusBar.Of(Used(199000, 200000, null, null), null, 0, Language.En).ContextLevel);
            // Over the window (a report before compaction) is a full meter, not more.
            Assert.AreEqual(100, StatusBar.Of(Used(250000, 200000, null, null), null, 0, Language.En).ContextPercent);

            // A subscription's cost means nothing: not shown (a plan name, or a login token).
            Assert.IsNull(StatusBar.Of(Used(1, 200000, 0.5, new Account { Subscription = "Claude Max" }), null, 0, Language.En).CostText);
            Assert.IsNull(StatusBar.Of(Used(1, 200000, 0.5, new Account { TokenSource = "CLAUDE_CODE_OAUTH_TOKEN" }), null, 0, Language.En).CostText);
            // No cost reported: none shown; no window known: no meter.
            var bare = StatusBar.Of(Used(500, null, null, apiKey), null, 0, Language.En);
            Assert.IsFalse(bare.ContextShown);
            Assert.IsNull(bare.CostText);
            Assert.AreEqual("12.5k tokens · Sonnet 4.5", PanelRich.Shown(bare.Rich()));
            Assert.AreEqual("default model", StatusBar.Of(new SessionView(), null, 0, Language.En).ModelText);
            Assert.AreEqual("既定のモデル", StatusBar.Of(new SessionView(), null, 0, Language.Ja).ModelText);
        }

        static SessionEventParams PlanUsage(UsageLimit limited, params UsageWindow[] windows) => new SessionEventParams
        {
            Event = "plan_usage",
            SessionId = "s",
            PlanUsageUsage = new PlanUsage { Windows = windows.ToList(), Limited = limited },
        };

        [Test]
        public void Plan_usage_keeps_each_windows_last_value_and_shows_a_refusal_until_it_resets()
        {
            var plan = new PlanUsageTracker();
            plan.Observe(new SessionEventParams { Event = "connected", Agent = new AgentInfo { Account = new Account { Subscription = "Claude Max" } } });
            plan.Observe(PlanUsage(null,
                new UsageWindow { Kind = "five_hour", Utilization = 0.42, State = "allowed", ResetsAt = 1000 + 7500 },
                new UsageWindow { Kind = "seven_day", Utilization = 0.1, State = "allowed" }));
            // A later reading with one window: the other keeps its last value.
            plan.Observe(PlanUsage(new UsageLimit { Kind = "five_hour", ResetsAt = 1000 + 600 },
                new UsageWindow { Kind = "five_hour", Utilization = 1.0, State = "rejected", ResetsAt = 1000 + 600 }));
            var bar = StatusBar.Of(new SessionView(), plan, 1000, Language.En);
            Assert.AreEqual("Claude Max", bar.PlanName);
            Assert.AreEqual(new[] { "5h 100% · resets in 10m 00s", "7d 10%" }, bar.PlanWindows.Select(w => StatusBar.WindowText(w, 1000, Language.En)).ToArray());
            Assert.AreEqual(new[] { "5時間 100% · 10分00秒 後にリセット", "7日 10%" }, StatusBar.Of(new SessionView(), plan, 1000, Language.Ja).PlanWindows.Select(w => StatusBar.WindowText(w, 1000, Language.Ja)).ToArray());
            Assert.AreEqual("rejected", bar.PlanWindows[0].State);
            Assert.AreEqual("rate limited · resets in 10m 00s", bar.LimitedText);
            // Once its reset time passed, the refusal is over.
            Assert.IsNull(StatusBar.Of(new SessionView(), plan, 1000 + 601, Language.En).LimitedText);
            // A reading without a refusal ends it.
            plan.Observe(PlanUsage(null, new UsageWindow { Kind = "five_hour", Utilization = 0.01, State = "allowed" }));
            Assert.IsNull(StatusBar.Of(new SessionView(), plan, 1000, Language.En).LimitedText);
        }

        [Test]
        public void The_model_picker_lists_the_agents_catalog_and_marks_the_current_entry()
        {
            var view = new SessionView
            {
                Model = "claude-opus-4-1-20250805",
                ModelEntry = "opus",
                Agent = new AgentInfo
                {
                    Models = new List<ModelChoice>
                    {
                        new ModelChoice { Id = "default", DisplayName = "Default (recommended)" },
                        new ModelChoice { Id = "opus", DisplayName = "Opus", Description = "Most capable <best>" },
                        new ModelChoice { Id = "sonnet", DisplayName = null },
                    },
                },
            };
            var items = Pickers.Models(view, null, Language.En);
            Assert.AreEqual(new[] { "default model", "Opus", "sonnet" }, items.Select(i => i.Label).ToArray());
            Assert.AreEqual(new[] { false, true, false }, items.Select(i => i.Current).ToArray());
            Assert.AreEqual("Most capable <best>", items[1].Detail);
            var request = Pickers.ChooseModel("s", items[2]);
            Assert.AreEqual("sonnet", request.Model);
            Assert.AreEqual("s", request.SessionId);
            Assert.IsNull(Pickers.ChooseModel("s", items[0]).Model, "the default: null, the agent's own");
            // Before the agent reports a catalog: the aliases agents/list gives.
            var aliases = Pickers.Models(new SessionView(), new AgentAvailability { Id = "claude", ModelAliases = new List<string> { "default", "opus", "haiku" } }, Language.Ja);
            Assert.AreEqual(new[] { "既定のモデル", "opus", "haiku" }, aliases.Select(i => i.Label).ToArray());
            Assert.IsTrue(aliases[0].Current);
            Assert.IsTrue(Pickers.CanSetModel(new AgentCapabilities { SetModel = true }));
            Assert.IsFalse(Pickers.CanSetModel(null));
        }

        [Test]
        public void The_mode_picker_offers_the_neutral_modes_and_the_agent_picker_the_installed_agents()
        {
            var modes = Pickers.PermissionModes(new SessionView { PermissionMode = "plan" }, Language.En);
            Assert.AreEqual(new[] { "default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions" }, modes.Select(m => m.Value).ToArray());
            Assert.AreEqual("plan", modes.Single(m => m.Current).Value);
            Assert.AreEqual("bypassPermissions", modes.Single(m => m.Dangerous).Value);
            Assert.AreEqual("計画のみ", Pickers.PermissionModes(new SessionView(), Language.Ja)[2].Label);
            Assert.IsFalse(modes.Any(m => m.Value == "other"), "a reported mode with no neutral name is never offered");
            Assert.AreEqual("acceptEdits", Pickers.ChooseMode("s", modes[1]).Mode);

            var agents = new List<AgentAvailability>
            {
                new AgentAvailability { Id = "gemini", Name = "Gemini CLI", Status = "not_installed", Install = "npm i -g @google/gemini-cli" },
                new AgentAvailability { Id = "claude", Name = "Claude Code", Status = "ready", Default = true, Version = "2.1.332" },
                new AgentAvailability { Id = "codex", Name = "Codex", Status = "ready" },
            };
            var items = Pickers.Agents(agents, null, Language.En);
            Assert.AreEqual(new[] { "claude", "codex", "gemini" }, items.Select(i => i.Value).ToArray());
            Assert.AreEqual(new[] { true, false, false }, items.Select(i => i.Current).ToArray(), "a new session: the default");
            Assert.AreEqual("default · 2.1.332", items[0].Detail);
            Assert.IsFalse(items[2].Enabled);
            Assert.AreEqual("not installed: npm i -g @google/gemini-cli", items[2].Detail);
            Assert.AreEqual("未インストール: npm i -g @google/gemini-cli", Pickers.Agents(agents, null, Language.Ja)[2].Detail);
            Assert.IsNull(Pickers.ChooseAgent("s", items[2]), "an agent that is not installed is not picked");
            Assert.AreEqual("codex", Pickers.ChooseAgent("s", items[1]).Agent);
            Assert.AreEqual("codex", Pickers.Agents(agents, "codex", Language.En).Single(i => i.Current).Value);
        }
    }
}
