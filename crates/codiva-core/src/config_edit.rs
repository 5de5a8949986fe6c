//! Editing the configuration file in place: one key at a time, keeping everything else the user
//! wrote — comments, blank lines, key order, quoting, unknown keys — byte for byte
//! (`toml_edit`). A value is checked against the key's kind before it is written, and the
//! result is loaded once more by [`crate::config::parse`], so an edit never writes a file that
//! codiva would reject. Pure text in, text out; the caller reads and writes the file.

use std::path::Path;

use codiva_protocol::params::{ConfigField, ConfigFieldKind, ConfigResult};
use codiva_protocol::tool::PermissionMode;
use toml_edit::{Array, DocumentMut, Item, Value};

/// What a key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// Free text (a model name, a path).
    Text,
    /// One of these words.
    Choice(&'static [&'static str]),
    Bool,
    Integer {
        min: i64,
        max: i64,
    },
    /// A list of strings.
    List,
}

/// One key of the configuration, in the README's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub key: &'static str,
    pub kind: FieldKind,
    /// The default, as the view shows it.
    pub default: &'static str,
}

/// Every key codiva reads.
pub const FIELDS: &[Field] = &[
    Field {
        key: "claude_path",
        kind: FieldKind::Text,
        default: "searched",
    },
    Field {
        key: "model",
        kind: FieldKind::Text,
        default: "the CLI's default",
    },
    Field {
        key: "permission_mode",
        kind: FieldKind::Choice(&PermissionMode::NAMES),
        default: "default",
    },
    Field {
        key: "ignored_files",
        kind: FieldKind::Choice(&["symlink", "copy", "none"]),
        default: "symlink",
    },
    Field {
        key: "ignored_files_exclude",
        kind: FieldKind::List,
        default: "[]",
    },
    Field {
        key: "fetch_base",
        kind: FieldKind::Bool,
        default: "true",
    },
    Field {
        key: "max_restarts",
        kind: FieldKind::Integer { min: 0, max: 100 },
        default: "3",
    },
    Field {
        key: "agent_idle_stop",
        kind: FieldKind::Text,
        default: "10m",
    },
    Field {
        key: "max_running_agents",
        kind: FieldKind::Integer { min: 0, max: 1000 },
        default: "no limit",
    },
    Field {
        key: "check",
        kind: FieldKind::Text,
        default: "none",
    },
    Field {
        key: "check_timeout",
        kind: FieldKind::Integer {
            min: 1,
            max: 24 * 3600,
        },
        default: "600",
    },
    Field {
        key: "wire_log_max_mb",
        kind: FieldKind::Integer {
            min: 0,
            max: 1024 * 1024,
        },
        default: "16",
    },
    Field {
        key: "daemon_idle_exit",
        kind: FieldKind::Integer {
            min: 0,
            max: 7 * 24 * 3600,
        },
        default: "1800",
    },
    Field {
        key: "notifications",
        kind: FieldKind::Bool,
        default: "true",
    },
    Field {
        key: "mouse",
        kind: FieldKind::Bool,
        default: "true",
    },
    Field {
        key: "language",
        kind: FieldKind::Choice(&["auto", "en", "ja"]),
        default: "auto",
    },
    Field {
        key: "agent",
        kind: FieldKind::Text,
        default: "the first installed",
    },
    Field {
        key: "codex_path",
        kind: FieldKind::Text,
        default: "searched",
    },
    Field {
        key: "gh_path",
        kind: FieldKind::Text,
        default: "gh from PATH",
    },
    Field {
        key: "github_repo",
        kind: FieldKind::Text,
        default: "from the remote",
    },
    Field {
        key: "auto_pr",
        kind: FieldKind::Bool,
        default: "false",
    },
    Field {
        key: "auto_ready",
        kind: FieldKind::Bool,
        default: "false",
    },
    Field {
        key: "titles",
        kind: FieldKind::Choice(&["agent", "prompt"]),
        default: "agent",
    },
    Field {
        key: "auto_recover",
        kind: FieldKind::Bool,
        default: "false",
    },
    Field {
        key: "auto_address_review",
        kind: FieldKind::Bool,
        default: "false",
    },
];

/// Every key [`set`] takes and [`values`] lists: [`FIELDS`], and each built-in agent's
/// `<id>_path` that it does not list.
pub fn settable() -> &'static [Field] {
    static ALL: std::sync::LazyLock<Vec<Field>> = std::sync::LazyLock::new(|| {
        let paths = crate::provider::catalog::BUILTIN
            .iter()
            .map(|spec| spec.path_key())
            .filter(|key| FIELDS.iter().all(|field| field.key != key))
            .map(|key| Field {
                // Once per process, for the life of the process.
                key: Box::leak(key.into_boxed_str()),
                kind: FieldKind::Text,
                default: "searched",
            });
        FIELDS.iter().copied().chain(paths).collect()
    });
    &ALL
}

/// Why an edit was not made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigEditError {
    /// The file is not valid TOML (1-based line); it is left alone.
    #[error("the file is not valid TOML (line {line}); fix it in an editor first")]
    NotToml { line: usize },
    #[error("unknown key {0:?}")]
    UnknownKey(String),
    /// The value does not fit the key's kind.
    #[error("{key}: {message}")]
    Invalid { key: &'static str, message: String },
}

/// A key and its value in the file as written (`None`: not set, the default applies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldValue {
    pub field: Field,
    pub value: Option<String>,
}

/// The keys codiva reads ([`settable`]) and what the file says for each.
pub fn values(text: &str) -> Result<Vec<FieldValue>, ConfigEditError> {
    let doc = parse_doc(text)?;
    Ok(settable()
        .iter()
        .map(|field| FieldValue {
            field: *field,
            value: doc.get(field.key).and_then(Item::as_value).map(|value| {
                let mut value = value.clone();
                value.decor_mut().clear();
                value.to_string()
            }),
        })
        .collect())
}

/// `text` with `key` set from what the user typed (`input`), or removed when `input` is empty.
/// Strings may be typed bare or quoted; a list as `a, b` or as a TOML array.
pub fn set(text: &str, key: &str, input: &str) -> Result<String, ConfigEditError> {
    let field = settable()
        .iter()
        .find(|field| field.key == key)
        .ok_or_else(|| ConfigEditError::UnknownKey(key.to_owned()))?;
    let mut doc = parse_doc(text)?;
    let input = input.trim();
    if input.is_empty() {
        doc.remove(field.key);
        return Ok(doc.to_string());
    }
    let mut value = value_of(field, input)?;
    match doc.get_mut(field.key) {
        // The trailing comment and spacing around the old value stay.
        Some(Item::Value(old)) => {
            *value.decor_mut() = old.decor().clone();
            *old = value;
        }
        Some(item) => *item = Item::Value(value),
        None => {
            doc.insert(field.key, Item::Value(value));
        }
    }
    let out = doc.to_string();
    // The same loader codiva starts with must accept the key as written.
    let (_, warnings) = crate::config::parse(&out, Path::new("config.toml"));
    if let Some(warning) = warnings
        .iter()
        .find(|w| w.key.as_deref() == Some(field.key))
    {
        return Err(ConfigEditError::Invalid {
            key: field.key,
            message: warning.message.clone(),
        });
    }
    Ok(out)
}

/// Why the configuration file was not read or changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigFileError {
    #[error(transparent)]
    Edit(#[from] ConfigEditError),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}

/// The configuration file at `path` as clients see it (a missing file: every default).
pub fn read_file(path: &Path) -> Result<ConfigResult, ConfigFileError> {
    let text = read_text(path)?;
    Ok(result(path, values(&text)?))
}

/// Sets `key` in the file at `path` from `input` (see [`set`]) and writes it atomically (a
/// temporary file renamed over it); nothing is written when the edit is refused.
pub fn set_in_file(path: &Path, key: &str, input: &str) -> Result<ConfigResult, ConfigFileError> {
    let text = read_text(path)?;
    let edited = set(&text, key, input)?;
    let write = || -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension("toml.tmp");
        std::fs::write(&tmp, &edited)?;
        std::fs::rename(tmp, path)
    };
    write().map_err(|err| io_error(path, &err))?;
    Ok(result(path, values(&edited)?))
}

fn read_text(path: &Path) -> Result<String, ConfigFileError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(err) => Err(io_error(path, &err)),
    }
}

fn io_error(path: &Path, err: &std::io::Error) -> ConfigFileError {
    ConfigFileError::Io {
        path: path.display().to_string(),
        message: err.to_string(),
    }
}

fn result(path: &Path, fields: Vec<FieldValue>) -> ConfigResult {
    ConfigResult {
        path: path.display().to_string(),
        fields: fields
            .into_iter()
            .map(|FieldValue { field, value }| ConfigField {
                key: field.key.to_owned(),
                kind: match field.kind {
                    FieldKind::Text => ConfigFieldKind::Text,
                    FieldKind::Choice(choices) => ConfigFieldKind::Choice {
                        choices: choices.iter().map(|c| (*c).to_owned()).collect(),
                    },
                    FieldKind::Bool => ConfigFieldKind::Bool,
                    FieldKind::Integer { min, max } => ConfigFieldKind::Integer { min, max },
                    FieldKind::List => ConfigFieldKind::List,
                },
                default: field.default.to_owned(),
                value,
            })
            .collect(),
    }
}

fn parse_doc(text: &str) -> Result<DocumentMut, ConfigEditError> {
    text.parse::<DocumentMut>().map_err(|err| {
        let line = err.span().map_or(1, |span| {
            text[..span.start.min(text.len())].matches('\n').count() + 1
        });
        ConfigEditError::NotToml { line }
    })
}

fn invalid(field: &Field, message: String) -> ConfigEditError {
    ConfigEditError::Invalid {
        key: field.key,
        message,
    }
}

/// A TOML literal typed by the user (`"x"`, `'x'`, `[…]`), if it is one.
fn literal(input: &str) -> Option<Value> {
    input.parse::<Value>().ok()
}

fn value_of(field: &Field, input: &str) -> Result<Value, ConfigEditError> {
    match field.kind {
        FieldKind::Text | FieldKind::Choice(_) => {
            let text = match literal(input) {
                Some(Value::String(text)) => text.into_value(),
                _ => input.to_owned(),
            };
            if let FieldKind::Choice(allowed) = field.kind
                && !allowed.contains(&text.as_str())
            {
                return Err(invalid(
                    field,
                    format!("expected one of {}, found {text:?}", allowed.join(", ")),
                ));
            }
            Ok(Value::from(text))
        }
        FieldKind::Bool => match input {
            "true" => Ok(Value::from(true)),
            "false" => Ok(Value::from(false)),
            _ => Err(invalid(
                field,
                format!("expected true or false, found {input:?}"),
            )),
        },
        FieldKind::Integer { min, max } => match input.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(Value::from(n)),
            _ => Err(invalid(
                field,
                format!("expected an integer from {min} to {max}, found {input:?}"),
            )),
        },
        FieldKind::List => {
            if input.starts_with('[') {
                return match literal(input) {
                    Some(value @ Value::Array(_)) => Ok(value),
                    _ => Err(invalid(
                        field,
                        format!("expected an array of strings, found {input:?}"),
                    )),
                };
            }
            let items: Array = input
                .split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty())
                .collect();
            Ok(Value::Array(items))
        }
    }
}

#[cfg(test)]
#[path = "config_edit_tests.rs"]
mod tests;
