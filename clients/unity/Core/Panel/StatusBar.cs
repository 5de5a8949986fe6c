// The status bar under the conversation: the context meter (`usage.context_used` of
// `usage.context_window`; hidden while the window is unknown), the session's tokens (the four
// counts of `usage.tokens`), its cost only where it means something (the agent reported
// `cost_usd` and the login is not a subscription, whose turns cost nothing per call — the
// TUI's rule, codiva_protocol::agent::Account::is_subscription), the plan usage of the login
// (`session/planUsage`, which the store does not fold: PlanUsageTracker) and the model.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Codiva.Client;
using Codiva.Protocol;

namespace Codiva.Panel
{
    public enum MeterLevel { Low, Medium, High }

    public sealed class PlanWindowLine
    {
        public string Kind;
        public string Label;
        public int Percent;
        /// `allowed`, `warning`, `rejected` (a later version's word kept).
        public string State;
        public long? ResetsAt;
    }

    public sealed class StatusBarModel
    {
        public bool ContextShown;
        /// 0 to 1.
        public double ContextFraction;
        public int ContextPercent;
        public MeterLevel ContextLevel;
        /// `42% · 84k/200k`.
        public string ContextText = "";
        public long Tokens;
        public string TokensText = "";
        /// Null: no cost shown.
        public string CostText;
        public string ModelText = "";
        public string PlanName;
        public List<PlanWindowLine> PlanWindows = new List<PlanWindowLine>();
        /// Null: no usage-limit refusal in force.
        public string LimitedText;

        /// The bar's whole text as rich text (outside words escaped), parts joined by ` · `.
        public string Rich()
        {
            var parts = new List<string>();
            if (ContextShown) parts.Add(ContextText);
            parts.Add(TokensText);
            if (CostText != null) parts.Add(CostText);
            if (LimitedText != null) parts.Add(LimitedText);
            parts.Add(ModelText);
            return RichText.Escape(string.Join(" · ", parts.Where(p => p.Length > 0)));
        }
    }

    public static class StatusBar
    {
        /// At this share of the window the meter turns to medium, then high (the TUI's 60/85).
        public const int MediumFrom = 60, HighFrom = 85;

        /// `nowUnix`: the wall clock in Unix seconds (for reset times).
        public static StatusBarModel Of(SessionView view, PlanUsageTracker plan, long nowUnix, Language language)
        {
            var bar = new StatusBarModel();
            var usage = view.Usage ?? new UsageView();
            var window = usage.ContextWindow ?? 0;
            if (window > 0)
            {
                var used = Math.Min(Math.Max(usage.ContextUsed, 0), window);
                bar.ContextShown = true;
                bar.ContextFraction = (double)used / window;
                bar.ContextPercent = (int)(used * 100 / window);
                bar.ContextLevel = bar.ContextPercent >= HighFrom ? MeterLevel.High : bar.ContextPercent >= MediumFrom ? MeterLevel.Medium : MeterLevel.Low;
                bar.ContextText = Strings.Format(Str.ContextMeter, language, bar.ContextPercent, Words.Tokens(used), Words.Tokens(window));
            }
            var tokens = usage.Tokens ?? new TokenUsage();
            bar.Tokens = tokens.Input + tokens.Output + tokens.CacheRead + tokens.CacheCreation;
            bar.TokensText = Strings.Format(Str.Tokens, language, Words.Tokens(bar.Tokens));
            if (usage.CostUsd.HasValue && !IsSubscription(view.Agent?.Account))
                bar.CostText = Strings.Format(Str.Cost, language, usage.CostUsd.Value.ToString("0.00", CultureInfo.InvariantCulture));
            var model = view.ModelEntry != null
                ? view.Agent?.Models?.FirstOrDefault(m => m?.Id == view.ModelEntry)?.DisplayName ?? view.Model
                : view.Model;
            bar.ModelText = string.IsNullOrEmpty(model) ? Strings.Get(Str.DefaultModel, language) : Words.OneLine(model, 60);
            if (plan != null)
            {
                bar.PlanName = plan.PlanName;
                foreach (var w in plan.Windows)
                {
                    var line = new PlanWindowLine
                    {
                        Kind = w.Kind,
                        Label = WindowWords(w.Kind, language),
                        Percent = (int)Math.Round(Math.Min(Math.Max(w.Utilization, 0), 1) * 100),
                        State = w.State,
                        ResetsAt = w.ResetsAt,
                    };
                    bar.PlanWindows.Add(line);
                }
                if (plan.Limited != null && (!plan.Limited.ResetsAt.HasValue || plan.Limited.ResetsAt.Value > nowUnix))
                    bar.LimitedText = plan.Limited.ResetsAt.HasValue
                        ? Strings.Format(Str.RateLimited, language, Words.Duration((plan.Limited.ResetsAt.Value - nowUnix) * 1000, language))
                        : Strings.Get(Str.RateLimitedNoTime, language);
            }
            return bar;
        }

        /// The login is a subscription: the account names a plan, or a login token (not an API
        /// key) is in use (codiva_protocol::agent::Account::is_subscription).
        public static bool IsSubscription(Account account) =>
            account != null && (account.Subscription != null || (!string.IsNullOrEmpty(account.TokenSource) && account.TokenSource != "none"));

        static string WindowWords(string kind, Language language)
        {
            switch (kind)
            {
                case "five_hour": return Strings.Get(Str.PlanWindowFiveHour, language);
                case "seven_day": return Strings.Get(Str.PlanWindowSevenDay, language);
                default: return Words.OneLine(kind, 20);
            }
        }

        /// A plan window's gauge text (`5h 42% · resets in 2h 05m`).
        public static string WindowText(PlanWindowLine line, long nowUnix, Language language)
        {
            var text = Strings.Format(Str.PlanWindow, language, line.Label, line.Percent);
            if (line.ResetsAt.HasValue && line.ResetsAt.Value > nowUnix)
                text += " · " + Strings.Format(Str.PlanResetsIn, language, Words.Duration((line.ResetsAt.Value - nowUnix) * 1000, language));
            return text;
        }
    }

    /// What the agents last reported of the login's plan usage: each window's last known value
    /// (a reading may carry fewer windows than the last: the others are kept), the refusal of
    /// the last reading, and the plan's name from the agent's account (docs/serve-api.md,
    /// `session/planUsage`). The store does not fold these (plan usage is the login's, not a
    /// session's): PanelFeed gives them here.
    public sealed class PlanUsageTracker
    {
        readonly SortedDictionary<string, UsageWindow> windows = new SortedDictionary<string, UsageWindow>(StringComparer.Ordinal);

        public string PlanName { get; private set; }
        public UsageLimit Limited { get; private set; }
        public IEnumerable<UsageWindow> Windows => windows.Values;

        /// Takes a session event: `plan_usage` (its windows and refusal) and `connected` (the plan's name).
        public void Observe(SessionEventParams ev)
        {
            if (ev == null) return;
            if (ev.Event == Known.SessionEventParams.PlanUsage && ev.PlanUsageUsage != null)
            {
                foreach (var window in ev.PlanUsageUsage.Windows ?? new List<UsageWindow>())
                    if (window?.Kind != null) windows[window.Kind] = window;
                Limited = ev.PlanUsageUsage.Limited;
            }
            else if (ev.Event == Known.SessionEventParams.Connected)
            {
                var plan = ev.Agent?.Account?.Subscription;
                if (!string.IsNullOrWhiteSpace(plan)) PlanName = Words.OneLine(plan, 40);
            }
        }
    }
}
