//! A session's pull requests at a glance: the list's PR cell and the session view's PR line,
//! with the glyphs codiva's users know — `⋯` checking, blank no pull request, `⋯ #12` number
//! known and state loading, `? #12` state unknown (the lookup failed), `✓` green, `●` checks
//! running, `✗` checks failed or conflicting, `⑂` merged, `⊘` closed, a dim number for a draft,
//! `+n` more pull requests — and their words in English and Japanese.

use codiva_protocol::github::{PrChecks, PrMergeable, PrState, SessionPr, SessionPrs};
use ratatui::style::Style;
use ratatui::text::Span;

use crate::i18n::{Lang, lang};
use crate::theme;

/// The glyphs.
pub mod glyph {
    pub const CHECKING: &str = "⋯";
    pub const UNKNOWN: &str = "?";
    pub const GREEN: &str = "✓";
    pub const RUNNING: &str = "●";
    pub const FAILED: &str = "✗";
    pub const MERGED: &str = "⑂";
    pub const CLOSED: &str = "⊘";
}

/// One pull request's glyph and its style.
pub fn glyph_of(pr: &SessionPr, lookup_failed: bool) -> (&'static str, Style) {
    let Some(view) = &pr.view else {
        return if lookup_failed {
            (glyph::UNKNOWN, theme::warning())
        } else {
            (glyph::CHECKING, theme::dim())
        };
    };
    match view.state {
        PrState::Merged => (glyph::MERGED, theme::accent()),
        PrState::Closed => (glyph::CLOSED, theme::dim()),
        PrState::Open
            if view.checks == PrChecks::Failed || view.mergeable == PrMergeable::Conflicting =>
        {
            (glyph::FAILED, theme::error())
        }
        PrState::Open if view.checks == PrChecks::Pending => (glyph::RUNNING, theme::warning()),
        PrState::Open => (glyph::GREEN, theme::success()),
    }
}

/// The number's style: dim for a draft.
fn number_style(pr: &SessionPr) -> Style {
    if pr.view.as_ref().is_some_and(|view| view.draft) {
        theme::dim()
    } else {
        theme::text()
    }
}

/// The list's PR cell: `✓ #12`, `● #12 +2`, `⋯` while checking; empty without a pull request.
pub fn cell(prs: &SessionPrs) -> Vec<Span<'static>> {
    let failed = prs.unavailable.is_some();
    let Some(first) = prs.prs.first() else {
        return if prs.watched && !prs.checked {
            let (glyph, style) = if failed {
                (glyph::UNKNOWN, theme::warning())
            } else {
                (glyph::CHECKING, theme::dim())
            };
            vec![Span::styled(glyph, style)]
        } else {
            Vec::new()
        };
    };
    let (glyph, style) = glyph_of(first, failed);
    let mut spans = vec![
        Span::styled(glyph, style),
        Span::styled(format!(" #{}", first.number), number_style(first)),
    ];
    if prs.prs.len() > 1 {
        spans.push(Span::styled(
            format!(" +{}", prs.prs.len() - 1),
            theme::dim(),
        ));
    }
    spans
}

/// The session view's PR line, if the session has (or looks for) a pull request: one pull
/// request with its state in words, several as a one-line summary (`3 pull requests: ✓ #12 ·
/// ● #13 · ⑂ #14`); a failed lookup says so, and what is shown is the last known.
pub fn line(prs: &SessionPrs) -> Option<Vec<Span<'static>>> {
    let failed = prs.unavailable.is_some();
    let mut spans: Vec<Span<'static>> = vec![Span::styled("  ", theme::dim())];
    // The URL goes last: on a narrow terminal the state stays in view.
    let mut url = None;
    match prs.prs.as_slice() {
        [] if prs.watched && !prs.checked => {
            spans.push(Span::styled(
                format!("{} {}", glyph::CHECKING, w(W::Checking)),
                theme::dim(),
            ));
        }
        [] => return None,
        [pr] => {
            let (glyph, style) = glyph_of(pr, failed);
            spans.push(Span::styled(format!("{glyph} "), style));
            spans.push(Span::styled(format!("#{}", pr.number), number_style(pr)));
            spans.push(Span::styled(
                format!(" · {}", state_words(pr, failed)),
                theme::dim(),
            ));
            url = Some(crate::dialog::sanitize(&pr.url).into_owned());
        }
        many => {
            spans.push(Span::styled(
                wf(W::Several, &[&many.len().to_string()]),
                theme::dim(),
            ));
            for (index, pr) in many.iter().enumerate() {
                let (glyph, style) = glyph_of(pr, failed);
                let sep = if index == 0 { " " } else { " · " };
                spans.push(Span::styled(sep, theme::dim()));
                spans.push(Span::styled(format!("{glyph} "), style));
                spans.push(Span::styled(format!("#{}", pr.number), number_style(pr)));
            }
        }
    }
    if let Some(unavailable) = &prs.unavailable {
        let reason = match unavailable.reason.as_str() {
            "rate_limited" => w(W::RateLimited),
            "not_authenticated" => w(W::NotAuthenticated),
            "not_installed" => w(W::NotInstalled),
            "network" | "timeout" => w(W::Network),
            _ => w(W::Failed),
        };
        spans.push(Span::styled(
            format!(" · {}", wf(W::LookupFailed, &[reason])),
            theme::warning(),
        ));
    }
    if let Some(url) = url {
        spans.push(Span::styled(format!(" · {url}"), theme::link()));
    }
    Some(spans)
}

/// One pull request's state in words: `draft · checks running`, `merged`, …
fn state_words(pr: &SessionPr, failed: bool) -> String {
    let Some(view) = &pr.view else {
        return w(if failed { W::Unknown } else { W::Loading }).to_owned();
    };
    let mut words: Vec<&str> = Vec::new();
    match view.state {
        PrState::Merged => return w(W::Merged).to_owned(),
        PrState::Closed => return w(W::Closed).to_owned(),
        PrState::Open => words.push(w(if view.draft { W::Draft } else { W::Open })),
    }
    match view.checks {
        PrChecks::Pending => words.push(w(W::ChecksRunning)),
        PrChecks::Failed => words.push(w(W::ChecksFailed)),
        PrChecks::Passed => words.push(w(W::ChecksPassed)),
        PrChecks::None => {}
    }
    if view.mergeable == PrMergeable::Conflicting {
        words.push(w(W::Conflicting));
    }
    words.join(" · ")
}

macro_rules! words {
    ($($key:ident => $en:literal, $ja:literal;)*) => {
        /// The words of the PR cell and line.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum W { $($key),* }
        impl W {
            pub const ALL: &'static [W] = &[$(W::$key),*];
        }
        /// `key` in `lang`.
        pub fn text(lang: Lang, key: W) -> &'static str {
            match (lang, key) {
                $( (Lang::En, W::$key) => $en, (Lang::Ja, W::$key) => $ja, )*
            }
        }
    };
}

words! {
    Checking => "looking for a pull request…", "プルリクエストを確認中…";
    Loading => "state loading", "状態を取得中";
    Unknown => "state unknown", "状態不明";
    Open => "open", "オープン";
    Draft => "draft", "ドラフト";
    Merged => "merged", "マージ済み";
    Closed => "closed", "クローズ済み";
    ChecksRunning => "checks running", "チェック実行中";
    ChecksFailed => "checks failed", "チェック失敗";
    ChecksPassed => "checks passed", "チェック成功";
    Conflicting => "conflicts with the base", "ベースと競合";
    Several => "{0} pull requests:", "プルリクエスト {0} 件:";
    LookupFailed => "lookup failed ({0}); showing the last known", "取得に失敗（{0}）。最後に分かった状態を表示";
    RateLimited => "rate limited, paused", "API 上限のため一時停止";
    NotAuthenticated => "gh is not logged in", "gh が未ログイン";
    NotInstalled => "gh is not installed", "gh が未インストール";
    Network => "GitHub unreachable", "GitHub に接続できません";
    Failed => "gh failed", "gh のエラー";
    ConfirmPr => "Push {0} and open a draft pull request into {1}?", "{0} をプッシュして {1} へのドラフトのプルリクエストを作りますか？";
    CmdPr => "push the branch and open a draft pull request", "ブランチをプッシュしてドラフトのプルリクエストを作成";
    Opened => "opened draft pull request #{0}: {1}", "ドラフトのプルリクエスト #{0} を作りました: {1}";
    Pushed => "pushed; pull request #{0}: {1}", "プッシュしました。プルリクエスト #{0}: {1}";
    NoPr => "this session has no pull request yet (/pr opens one)", "このセッションにはまだプルリクエストがありません（/pr で作成）";
}

/// `key` in the current language.
pub fn w(key: W) -> &'static str {
    text(lang(), key)
}

/// `key` with `{0}`, `{1}`, … replaced by `args`.
pub fn wf(key: W, args: &[&str]) -> String {
    crate::i18n::fill(w(key), args)
}

/// What `session/pr` did, in one line.
pub fn opened(result: &codiva_protocol::params::PrResult) -> String {
    let key = if result.created { W::Opened } else { W::Pushed };
    let url = crate::dialog::sanitize(&result.pr.url);
    wf(key, &[&result.pr.number.to_string(), &url])
}

/// The pull request `p` and a click open: the session's first (its branch's own).
pub fn primary_url(prs: &SessionPrs) -> Option<&str> {
    prs.prs.first().map(|pr| pr.url.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placeholders(text: &str) -> Vec<String> {
        let mut found: Vec<String> = (0..4)
            .map(|i| format!("{{{i}}}"))
            .filter(|p| text.contains(p.as_str()))
            .collect();
        found.sort();
        found
    }

    #[test]
    fn both_languages_have_the_same_placeholders() {
        for key in W::ALL {
            assert_eq!(
                placeholders(text(Lang::En, *key)),
                placeholders(text(Lang::Ja, *key)),
                "{key:?}"
            );
        }
    }
}
