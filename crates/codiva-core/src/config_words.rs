//! What the configuration's warnings say, in the UI's language (English or Japanese): the
//! loader records each problem as data ([`Problem`]) and words it once it knows the language —
//! `CODIVA_LANG`, then the file's own `language`, then the locale, the order the terminal UI
//! uses — so the TUI, `codiva exec` and `codiva serve` (its `initialize` warnings) show them
//! in the language the UI speaks.

use std::fmt::Write as _;

use codiva_protocol::lang::Lang;

/// What was found where a value was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Text(String),
    Integer(i64),
    /// A number where the kind is known (out of range).
    Number(String),
    Float(String),
    Boolean(bool),
    Datetime(String),
    Array,
    Table,
}

/// What a key takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    Text,
    NonEmptyText,
    OneOf(Vec<String>),
    TextArray,
    Boolean,
    Integer,
    IntegerIn { min: i64, max: i64 },
    Duration,
    AtMostSeconds(u64),
    HostOwnerRepo,
    Table,
    TextTable,
}

/// One problem of the file or of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    NotUtf8,
    Unreadable(String),
    InvalidToml(String),
    UnknownKey,
    /// `found` where `expected` belongs; `in_list`: as an item of a list.
    Invalid {
        expected: Expected,
        found: Found,
        in_list: bool,
    },
    /// `[agents.<id>]` without a `command`.
    AgentWithoutCommand,
    /// `[agents.<id>]` where `<id>` is a built-in agent's.
    AgentIsBuiltIn {
        id: String,
    },
    /// An id that is not letters, digits, `-` and `_`.
    AgentBadId,
    /// A key of `modes` that is not a permission mode.
    NotAMode {
        name: String,
        modes: Vec<String>,
    },
    /// The entry is left out because of `problem`.
    AgentLeftOut {
        id: String,
        problem: Box<Problem>,
    },
}

impl Found {
    fn words(&self, lang: Lang) -> String {
        match (self, lang) {
            (Found::Text(text), _) => format!("{text:?}"),
            (Found::Number(n), _) => n.clone(),
            (Found::Integer(n), Lang::En) => format!("the integer {n}"),
            (Found::Integer(n), Lang::Ja) => format!("整数 {n}"),
            (Found::Float(n), Lang::En) => format!("the float {n}"),
            (Found::Float(n), Lang::Ja) => format!("小数 {n}"),
            (Found::Boolean(flag), Lang::En) => format!("the boolean {flag}"),
            (Found::Boolean(flag), Lang::Ja) => format!("真偽値 {flag}"),
            (Found::Datetime(date), Lang::En) => format!("the datetime {date}"),
            (Found::Datetime(date), Lang::Ja) => format!("日時 {date}"),
            (Found::Array, Lang::En) => "an array".to_owned(),
            (Found::Array, Lang::Ja) => "配列".to_owned(),
            (Found::Table, Lang::En) => "a table".to_owned(),
            (Found::Table, Lang::Ja) => "テーブル".to_owned(),
        }
    }
}

impl Expected {
    fn words(&self, lang: Lang) -> String {
        match (self, lang) {
            (Expected::Text, Lang::En) => "a string".to_owned(),
            (Expected::Text, Lang::Ja) => "文字列".to_owned(),
            (Expected::NonEmptyText, Lang::En) => "a non-empty string".to_owned(),
            (Expected::NonEmptyText, Lang::Ja) => "空でない文字列".to_owned(),
            (Expected::OneOf(names), Lang::En) => format!("one of {}", names.join(", ")),
            (Expected::OneOf(names), Lang::Ja) => format!("{} のいずれか", names.join(", ")),
            (Expected::TextArray, Lang::En) => "an array of strings".to_owned(),
            (Expected::TextArray, Lang::Ja) => "文字列の配列".to_owned(),
            (Expected::Boolean, Lang::En) => "true or false".to_owned(),
            (Expected::Boolean, Lang::Ja) => "true か false".to_owned(),
            (Expected::Integer, Lang::En) => "an integer".to_owned(),
            (Expected::Integer, Lang::Ja) => "整数".to_owned(),
            (Expected::IntegerIn { min, max }, Lang::En) => {
                format!("an integer from {min} to {max}")
            }
            (Expected::IntegerIn { min, max }, Lang::Ja) => format!("{min} から {max} の整数"),
            (Expected::Duration, Lang::En) => {
                "seconds or a duration such as \"10m\", \"90s\" or \"1h\"".to_owned()
            }
            (Expected::Duration, Lang::Ja) => {
                "秒数、または \"10m\"、\"90s\"、\"1h\" のような時間".to_owned()
            }
            (Expected::AtMostSeconds(max), Lang::En) => format!("at most {max} seconds"),
            (Expected::AtMostSeconds(max), Lang::Ja) => format!("{max} 秒以下"),
            (Expected::HostOwnerRepo, _) => "HOST/OWNER/REPO".to_owned(),
            (Expected::Table, Lang::En) => "a table".to_owned(),
            (Expected::Table, Lang::Ja) => "テーブル".to_owned(),
            (Expected::TextTable, Lang::En) => "a table of strings".to_owned(),
            (Expected::TextTable, Lang::Ja) => "文字列のテーブル".to_owned(),
        }
    }
}

impl Problem {
    /// The problem in `lang`.
    pub fn words(&self, lang: Lang) -> String {
        match (self, lang) {
            (Problem::NotUtf8, Lang::En) => "not UTF-8 text; using the defaults".to_owned(),
            (Problem::NotUtf8, Lang::Ja) => {
                "UTF-8 のテキストではありません。既定値を使います".to_owned()
            }
            (Problem::Unreadable(error), Lang::En) => {
                format!("cannot be read ({error}); using the defaults")
            }
            (Problem::Unreadable(error), Lang::Ja) => {
                format!("読めません（{error}）。既定値を使います")
            }
            (Problem::InvalidToml(error), Lang::En) => {
                format!("invalid TOML ({error}); using the defaults")
            }
            (Problem::InvalidToml(error), Lang::Ja) => {
                format!("TOML として正しくありません（{error}）。既定値を使います")
            }
            (Problem::UnknownKey, Lang::En) => "unknown key (ignored)".to_owned(),
            (Problem::UnknownKey, Lang::Ja) => "不明なキーです（無視します）".to_owned(),
            (
                Problem::Invalid {
                    expected,
                    found,
                    in_list,
                },
                Lang::En,
            ) => {
                let mut text = format!(
                    "expected {}, found {}",
                    expected.words(lang),
                    found.words(lang)
                );
                if *in_list {
                    text.push_str(" in it");
                }
                text
            }
            (
                Problem::Invalid {
                    expected,
                    found,
                    in_list,
                },
                Lang::Ja,
            ) => {
                let mut text = String::new();
                if *in_list {
                    text.push_str("要素に ");
                }
                let _ = write!(
                    text,
                    "{} があります（{}が必要です）",
                    found.words(lang),
                    expected.words(lang)
                );
                text
            }
            (Problem::AgentWithoutCommand, Lang::En) => {
                "no command (the program that runs the agent)".to_owned()
            }
            (Problem::AgentWithoutCommand, Lang::Ja) => {
                "command（agent を動かすプログラム）がありません".to_owned()
            }
            (Problem::AgentIsBuiltIn { id }, Lang::En) => format!(
                "{id} is a built-in agent; name yours otherwise (its program is set with {id}_path)"
            ),
            (Problem::AgentIsBuiltIn { id }, Lang::Ja) => format!(
                "{id} は組み込みの agent です。別の名前にしてください（そのプログラムは {id}_path で指定します）"
            ),
            (Problem::AgentBadId, Lang::En) => {
                "an agent's id is letters, digits, - and _".to_owned()
            }
            (Problem::AgentBadId, Lang::Ja) => {
                "agent の id に使えるのは英数字、- と _ です".to_owned()
            }
            (Problem::NotAMode { name, modes }, Lang::En) => format!(
                "{name:?} is not a permission mode (expected one of {})",
                modes.join(", ")
            ),
            (Problem::NotAMode { name, modes }, Lang::Ja) => format!(
                "{name:?} は権限モードではありません（{} のいずれか）",
                modes.join(", ")
            ),
            (Problem::AgentLeftOut { id, problem }, Lang::En) => {
                format!("{}; agent {id} is left out", problem.words(lang))
            }
            (Problem::AgentLeftOut { id, problem }, Lang::Ja) => {
                format!("{}。agent {id} は使いません", problem.words(lang))
            }
        }
    }
}
