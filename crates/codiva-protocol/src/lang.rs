//! The languages codiva's front ends speak, and how one is chosen: `CODIVA_LANG`, then the
//! configuration's `language`, then the locale. The TUI words its screens and the core its
//! configuration warnings by the same choice.

/// A language codiva speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
    Ja,
}

impl Lang {
    /// `CODIVA_LANG`, then `config` (the configuration's `language`), then the locale (`ja…`
    /// is Japanese, any other set value English; `auto` or nothing passes to the next).
    pub fn choose(codiva_lang: Option<&str>, config: Option<&str>, locale: Option<&str>) -> Lang {
        let pick = |value: &str| {
            let value = value.trim().to_ascii_lowercase();
            if value.is_empty() || value == "auto" {
                None
            } else if value.starts_with("ja") {
                Some(Lang::Ja)
            } else {
                Some(Lang::En)
            }
        };
        codiva_lang
            .and_then(pick)
            .or_else(|| config.and_then(pick))
            .or_else(|| locale.and_then(pick))
            .unwrap_or(Lang::En)
    }
}

/// The locale from the environment, as the C library would pick it.
pub fn locale_from_env() -> Option<String> {
    ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codiva_lang_then_the_config_then_the_locale() {
        assert_eq!(Lang::choose(None, None, None), Lang::En);
        assert_eq!(Lang::choose(None, None, Some("ja_JP.UTF-8")), Lang::Ja);
        assert_eq!(
            Lang::choose(None, Some("en"), Some("ja_JP.UTF-8")),
            Lang::En
        );
        assert_eq!(Lang::choose(Some("ja"), Some("en"), None), Lang::Ja);
        assert_eq!(Lang::choose(Some("auto"), Some(" "), Some("ja")), Lang::Ja);
        assert_eq!(Lang::choose(Some("C"), None, Some("ja")), Lang::En);
    }
}
