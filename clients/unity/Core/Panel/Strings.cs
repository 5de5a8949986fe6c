// The words the panel shows, in English and Japanese, in one typed catalog: a key is an enum
// member, so a missing key is a compile error at the call and a missing translation a failing
// parity test (`StringsTests`), never a blank button.
using System;
using System.Collections.Generic;

namespace Codiva.Panel
{
    public enum Language { En, Ja }

    public enum Str
    {
        Next,
        Back,
        Submit,
        Skip,
        Other,
        OtherPlaceholder,
        /// `{0}`: the question's number, `{1}`: how many there are.
        QuestionOf,
        ChooseOne,
        ChooseAny,
        AnswerEveryQuestion,
        You,
        Agent,
        Thinking,
        /// `{0}`: how long, worded (`12s`).
        ThoughtFor,
        Compacted,
        CompactedAuto,
        /// `{0}`: the tokens before, worded (`84k`).
        CompactedTokens,
        /// `{0}`: how many tool calls.
        ToolsFolded,
        ToolRunning,
        ToolSucceeded,
        ToolFailed,
        ToolDenied,
        /// `{0}`: how many lines are not shown.
        DiffMoreLines,
        /// `{0}`: seconds (may have one decimal).
        Seconds,
        /// `{0}`: minutes, `{1}`: seconds (two digits).
        MinutesSeconds,
        /// `{0}`: hours, `{1}`: minutes (two digits).
        HoursMinutes,
        /// `{0}`: tool uses, `{1}`: tokens, `{2}`: elapsed.
        SubagentSteps,
        SubagentRunning,
        SubagentStarting,
        SubagentCompleted,
        SubagentFailed,
        SubagentStopped,
        SubagentUnknown,
        /// `{0}`: the tool it used last.
        SubagentLastTool,
        /// `{0}`: done, `{1}`: total.
        Todos,
        /// `{0}`: the tool.
        PermissionAsks,
        Allow,
        AlwaysAllow,
        Deny,
        DenyAndStop,
        DenyReasonPlaceholder,
        /// `{0}`: how many other requests wait.
        MoreWaiting,
        /// `{0}`: the tool.
        ScopeTool,
        /// `{0}`: the rules.
        ScopeRules,
        /// `{0}`: the mode's name.
        ScopeMode,
        /// `{0}`: the directories.
        ScopeDirectories,
        PlaceSession,
        PlaceLocal,
        PlaceProject,
        PlaceUser,
        PlaceCommandLine,
        /// `{0}`: what is allowed, `{1}`: where it is kept.
        ScopeWithPlace,
        /// `{0}`: percent used, `{1}`: used tokens, `{2}`: the window.
        ContextMeter,
        /// `{0}`: tokens, worded (`12.3k`).
        Tokens,
        /// `{0}`: dollars with two decimals.
        Cost,
        DefaultModel,
        PlanWindowFiveHour,
        PlanWindowSevenDay,
        /// `{0}`: the window's name, `{1}`: percent used.
        PlanWindow,
        /// `{0}`: how long until it resets.
        PlanResetsIn,
        /// `{0}`: how long until it resets.
        RateLimited,
        RateLimitedNoTime,
        ModeDefault,
        ModeAcceptEdits,
        ModePlan,
        ModeAuto,
        ModeDontAsk,
        ModeBypass,
        /// `{0}`: the install command.
        AgentNotInstalled,
        AgentDefault,
        LoginLoggedIn,
        /// `{0}`: how (the agent's word).
        LoginLoggedInWith,
        LoginNotLoggedIn,
        /// `{0}`: why it is not known.
        LoginUnknown,
        LoginStart,
        LoginRunning,
        LoginOpen,
        LoginEnterCode,
        /// `{0}`: the one-time code.
        LoginShowCode,
        LoginChooseMethod,
        /// `{0}`: variable names.
        LoginNeedsEnv,
        LoginSucceeded,
        /// `{0}`: why.
        LoginFailed,
        LoginCancelled,
        Cancel,
        HistoryOpen,
        HistoryRename,
        HistoryDiscard,
        HistoryRestore,
        /// `{0}`: uncommitted files, `{1}`: unmerged commits.
        DiscardPreview,
        DiscardChanged,
        PhaseDiscarded,
        PhaseMerged,
        /// `{0}`: the file's name.
        ImageUnsupportedType,
        /// `{0}`: the file's name, `{1}`: the limit in MB.
        ImageTooLarge,
        /// `{0}`: the file's name, `{1}`: the limit in pixels.
        ImageTooManyPixels,
        /// `{0}`: the limit.
        ImageTooMany,
        /// `{0}`: the file's name.
        ImageEmpty,
        /// `{0}`: the session's title, `{1}`: the tool.
        NotifyPermission,
        /// `{0}`: the session's title.
        NotifyQuestion,
        /// `{0}`: the session's title, `{1}`: its status.
        NotifyTurnEnded,
        StatusCompleted,
        StatusFailed,
        StatusInterrupted,
        StatusRateLimited,
        StatusNeedsLogin,
    }

    public static class Strings
    {
        public static readonly IReadOnlyDictionary<Str, string> En = new Dictionary<Str, string>
        {
            { Str.Next, "Next" },
            { Str.Back, "Back" },
            { Str.Submit, "Submit" },
            { Str.Skip, "Skip" },
            { Str.Other, "Other…" },
            { Str.OtherPlaceholder, "Type your own answer" },
            { Str.QuestionOf, "Question {0} of {1}" },
            { Str.ChooseOne, "Choose one" },
            { Str.ChooseAny, "Choose any" },
            { Str.AnswerEveryQuestion, "Answer every question to submit" },
            { Str.You, "You" },
            { Str.Agent, "Agent" },
            { Str.Thinking, "Thinking…" },
            { Str.ThoughtFor, "Thought for {0}" },
            { Str.Compacted, "Context compacted" },
            { Str.CompactedAuto, "Context compacted automatically" },
            { Str.CompactedTokens, "Context compacted ({0} tokens before)" },
            { Str.ToolsFolded, "{0} tools" },
            { Str.ToolRunning, "running" },
            { Str.ToolSucceeded, "done" },
            { Str.ToolFailed, "failed" },
            { Str.ToolDenied, "denied" },
            { Str.DiffMoreLines, "… {0} more lines" },
            { Str.Seconds, "{0}s" },
            { Str.MinutesSeconds, "{0}m {1}s" },
            { Str.HoursMinutes, "{0}h {1}m" },
            { Str.SubagentSteps, "{0} steps · {1} tokens · {2}" },
            { Str.SubagentRunning, "running" },
            { Str.SubagentStarting, "starting" },
            { Str.SubagentCompleted, "completed" },
            { Str.SubagentFailed, "failed" },
            { Str.SubagentStopped, "stopped" },
            { Str.SubagentUnknown, "ended" },
            { Str.SubagentLastTool, "last: {0}" },
            { Str.Todos, "Tasks {0}/{1}" },
            { Str.PermissionAsks, "Allow {0}?" },
            { Str.Allow, "Allow" },
            { Str.AlwaysAllow, "Always…" },
            { Str.Deny, "Deny" },
            { Str.DenyAndStop, "Deny and stop" },
            { Str.DenyReasonPlaceholder, "Why not? (the agent reads this)" },
            { Str.MoreWaiting, "{0} more waiting" },
            { Str.ScopeTool, "Always allow {0} in this session" },
            { Str.ScopeRules, "Always allow {0}" },
            { Str.ScopeMode, "Switch to {0}" },
            { Str.ScopeDirectories, "Allow access to {0}" },
            { Str.PlaceSession, "this session" },
            { Str.PlaceLocal, "this project, just you" },
            { Str.PlaceProject, "this project" },
            { Str.PlaceUser, "all your projects" },
            { Str.PlaceCommandLine, "this run" },
            { Str.ScopeWithPlace, "{0} ({1})" },
            { Str.ContextMeter, "{0}% · {1}/{2}" },
            { Str.Tokens, "{0} tokens" },
            { Str.Cost, "${0}" },
            { Str.DefaultModel, "default model" },
            { Str.PlanWindowFiveHour, "5h" },
            { Str.PlanWindowSevenDay, "7d" },
            { Str.PlanWindow, "{0} {1}%" },
            { Str.PlanResetsIn, "resets in {0}" },
            { Str.RateLimited, "rate limited · resets in {0}" },
            { Str.RateLimitedNoTime, "rate limited" },
            { Str.ModeDefault, "Ask before edits" },
            { Str.ModeAcceptEdits, "Accept edits" },
            { Str.ModePlan, "Plan only" },
            { Str.ModeAuto, "Auto" },
            { Str.ModeDontAsk, "Don't ask (deny what is not allowed)" },
            { Str.ModeBypass, "Bypass permissions (dangerous)" },
            { Str.AgentNotInstalled, "not installed: {0}" },
            { Str.AgentDefault, "default" },
            { Str.LoginLoggedIn, "Logged in" },
            { Str.LoginLoggedInWith, "Logged in ({0})" },
            { Str.LoginNotLoggedIn, "Not logged in" },
            { Str.LoginUnknown, "Login unknown: {0}" },
            { Str.LoginStart, "Log in" },
            { Str.LoginRunning, "Logging in… finish in your browser" },
            { Str.LoginOpen, "Open the login page" },
            { Str.LoginEnterCode, "Paste the code the page shows" },
            { Str.LoginShowCode, "Enter this code on the page: {0}" },
            { Str.LoginChooseMethod, "Choose how to log in" },
            { Str.LoginNeedsEnv, "Set {0} where the agents run, then try again" },
            { Str.LoginSucceeded, "Logged in" },
            { Str.LoginFailed, "Login failed: {0}" },
            { Str.LoginCancelled, "Login cancelled" },
            { Str.Cancel, "Cancel" },
            { Str.HistoryOpen, "Open" },
            { Str.HistoryRename, "Rename" },
            { Str.HistoryDiscard, "Discard" },
            { Str.HistoryRestore, "Restore" },
            { Str.DiscardPreview, "Discard {0} uncommitted files and {1} unmerged commits? (kept in the archive; Restore brings them back)" },
            { Str.DiscardChanged, "The session changed since the preview: check again" },
            { Str.PhaseDiscarded, "discarded" },
            { Str.PhaseMerged, "merged" },
            { Str.ImageUnsupportedType, "{0}: not a PNG, JPEG, GIF or WebP image" },
            { Str.ImageTooLarge, "{0}: larger than {1} MB" },
            { Str.ImageTooManyPixels, "{0}: wider or taller than {1} pixels" },
            { Str.ImageTooMany, "At most {0} images per message" },
            { Str.ImageEmpty, "{0}: the file is empty" },
            { Str.NotifyPermission, "{0}: wants to use {1}" },
            { Str.NotifyQuestion, "{0}: has a question" },
            { Str.NotifyTurnEnded, "{0}: {1}" },
            { Str.StatusCompleted, "finished" },
            { Str.StatusFailed, "failed" },
            { Str.StatusInterrupted, "interrupted" },
            { Str.StatusRateLimited, "rate limited" },
            { Str.StatusNeedsLogin, "needs login" },
        };

        public static readonly IReadOnlyDictionary<Str, string> Ja = new Dictionary<Str, string>
        {
            { Str.Next, "次へ" },
            { Str.Back, "戻る" },
            { Str.Submit, "送信" },
            { Str.Skip, "スキップ" },
            { Str.Other, "その他…" },
            { Str.OtherPlaceholder, "回答を入力" },
            { Str.QuestionOf, "質問 {0} / {1}" },
            { Str.ChooseOne, "1つ選択" },
            { Str.ChooseAny, "複数選択可" },
            { Str.AnswerEveryQuestion, "すべての質問に答えると送信できます" },
            { Str.You, "あなた" },
            { Str.Agent, "エージェント" },
            { Str.Thinking, "思考中…" },
            { Str.ThoughtFor, "{0} 思考" },
            { Str.Compacted, "コンテキストを圧縮しました" },
            { Str.CompactedAuto, "コンテキストを自動で圧縮しました" },
            { Str.CompactedTokens, "コンテキストを圧縮しました (圧縮前 {0} トークン)" },
            { Str.ToolsFolded, "ツール {0} 件" },
            { Str.ToolRunning, "実行中" },
            { Str.ToolSucceeded, "完了" },
            { Str.ToolFailed, "失敗" },
            { Str.ToolDenied, "拒否" },
            { Str.DiffMoreLines, "… ほか {0} 行" },
            { Str.Seconds, "{0}秒" },
            { Str.MinutesSeconds, "{0}分{1}秒" },
            { Str.HoursMinutes, "{0}時間{1}分" },
            { Str.SubagentSteps, "{0} ステップ · {1} トークン · {2}" },
            { Str.SubagentRunning, "実行中" },
            { Str.SubagentStarting, "開始中" },
            { Str.SubagentCompleted, "完了" },
            { Str.SubagentFailed, "失敗" },
            { Str.SubagentStopped, "停止" },
            { Str.SubagentUnknown, "終了" },
            { Str.SubagentLastTool, "直近: {0}" },
            { Str.Todos, "タスク {0}/{1}" },
            { Str.PermissionAsks, "{0} を許可しますか?" },
            { Str.Allow, "許可" },
            { Str.AlwaysAllow, "常に許可…" },
            { Str.Deny, "拒否" },
            { Str.DenyAndStop, "拒否して停止" },
            { Str.DenyReasonPlaceholder, "拒否の理由 (エージェントに伝わります)" },
            { Str.MoreWaiting, "ほか {0} 件が待機中" },
            { Str.ScopeTool, "このセッションでは {0} を常に許可" },
            { Str.ScopeRules, "{0} を常に許可" },
            { Str.ScopeMode, "{0} に切り替える" },
            { Str.ScopeDirectories, "{0} へのアクセスを許可" },
            { Str.PlaceSession, "このセッション" },
            { Str.PlaceLocal, "このプロジェクト (自分のみ)" },
            { Str.PlaceProject, "このプロジェクト" },
            { Str.PlaceUser, "すべてのプロジェクト" },
            { Str.PlaceCommandLine, "今回の実行" },
            { Str.ScopeWithPlace, "{0} ({1})" },
            { Str.ContextMeter, "{0}% · {1}/{2}" },
            { Str.Tokens, "{0} トークン" },
            { Str.Cost, "${0}" },
            { Str.DefaultModel, "既定のモデル" },
            { Str.PlanWindowFiveHour, "5時間" },
            { Str.PlanWindowSevenDay, "7日" },
            { Str.PlanWindow, "{0} {1}%" },
            { Str.PlanResetsIn, "{0} 後にリセット" },
            { Str.RateLimited, "利用上限 · {0} 後にリセット" },
            { Str.RateLimitedNoTime, "利用上限" },
            { Str.ModeDefault, "編集前に確認" },
            { Str.ModeAcceptEdits, "編集を自動承認" },
            { Str.ModePlan, "計画のみ" },
            { Str.ModeAuto, "自動" },
            { Str.ModeDontAsk, "確認しない (許可外は拒否)" },
            { Str.ModeBypass, "権限を無視 (危険)" },
            { Str.AgentNotInstalled, "未インストール: {0}" },
            { Str.AgentDefault, "既定" },
            { Str.LoginLoggedIn, "ログイン済み" },
            { Str.LoginLoggedInWith, "ログイン済み ({0})" },
            { Str.LoginNotLoggedIn, "未ログイン" },
            { Str.LoginUnknown, "ログイン状態不明: {0}" },
            { Str.LoginStart, "ログイン" },
            { Str.LoginRunning, "ログイン中… ブラウザで完了してください" },
            { Str.LoginOpen, "ログインページを開く" },
            { Str.LoginEnterCode, "ページに表示されたコードを貼り付け" },
            { Str.LoginShowCode, "ページでこのコードを入力: {0}" },
            { Str.LoginChooseMethod, "ログイン方法を選択" },
            { Str.LoginNeedsEnv, "エージェントの実行環境に {0} を設定してから再試行してください" },
            { Str.LoginSucceeded, "ログインしました" },
            { Str.LoginFailed, "ログイン失敗: {0}" },
            { Str.LoginCancelled, "ログインを取り消しました" },
            { Str.Cancel, "取消" },
            { Str.HistoryOpen, "開く" },
            { Str.HistoryRename, "名前を変更" },
            { Str.HistoryDiscard, "破棄" },
            { Str.HistoryRestore, "復元" },
            { Str.DiscardPreview, "未コミットのファイル {0} 件と未マージのコミット {1} 件を破棄しますか? (アーカイブに保存され、復元できます)" },
            { Str.DiscardChanged, "プレビュー後にセッションが変わりました。確認し直してください" },
            { Str.PhaseDiscarded, "破棄済み" },
            { Str.PhaseMerged, "マージ済み" },
            { Str.ImageUnsupportedType, "{0}: 対応していない画像形式です" },
            { Str.ImageTooLarge, "{0}: {1} メガバイトを超えています" },
            { Str.ImageTooManyPixels, "{0}: 幅か高さが {1} ピクセルを超えています" },
            { Str.ImageTooMany, "1メッセージにつき画像は {0} 枚まで" },
            { Str.ImageEmpty, "{0}: ファイルが空です" },
            { Str.NotifyPermission, "{0}: {1} の使用許可を求めています" },
            { Str.NotifyQuestion, "{0}: 質問があります" },
            { Str.NotifyTurnEnded, "{0}: {1}" },
            { Str.StatusCompleted, "完了" },
            { Str.StatusFailed, "失敗" },
            { Str.StatusInterrupted, "中断" },
            { Str.StatusRateLimited, "利用上限" },
            { Str.StatusNeedsLogin, "ログインが必要" },
        };

        public static IReadOnlyDictionary<Str, string> Of(Language language) => language == Language.Ja ? Ja : En;

        public static string Get(Str key, Language language)
        {
            string text;
            if (Of(language).TryGetValue(key, out text)) return text;
            return En.TryGetValue(key, out text) ? text : key.ToString();
        }

        public static string Format(Str key, Language language, params object[] args) => string.Format(Get(key, language), args);

        /// The panel's language from a system language name (`Japanese` → Japanese; else English):
        /// the Editor passes `Application.systemLanguage.ToString()`.
        public static Language FromSystemLanguage(string name) =>
            string.Equals(name, "Japanese", StringComparison.OrdinalIgnoreCase) ? Language.Ja : Language.En;
    }
}
