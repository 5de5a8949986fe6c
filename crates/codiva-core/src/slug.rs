//! Session slugs: the name of a session's worktree directory and branch (`codiva/<slug>`).

use std::collections::BTreeSet;

/// The longest slug, suffix included.
pub const MAX_SLUG_LEN: usize = 40;
/// The slug of an instruction with no ASCII letter or digit (e.g. Japanese only).
pub const FALLBACK_SLUG: &str = "task";

/// An ASCII kebab-case slug of `prompt`, at most [`MAX_SLUG_LEN`] characters, not in `taken`.
///
/// Runs of anything but ASCII letters and digits become one `-`; letters are lowercased. A long
/// slug is cut at a word boundary when one exists in the allowed length, and never ends with
/// `-`. A prompt without ASCII letters or digits gives [`FALLBACK_SLUG`]. A taken slug gets
/// `-2`, `-3`, … (the stem shortened so that the whole stays within the limit).
pub fn slugify(prompt: &str, taken: &BTreeSet<String>) -> String {
    let stem = kebab(prompt);
    let stem = if stem.is_empty() {
        FALLBACK_SLUG.to_string()
    } else {
        cut(&stem, MAX_SLUG_LEN)
    };
    if !taken.contains(&stem) {
        return stem;
    }
    for n in 2u64.. {
        let suffix = format!("-{n}");
        let candidate = format!("{}{suffix}", cut(&stem, MAX_SLUG_LEN - suffix.len()));
        if !taken.contains(&candidate) {
            return candidate;
        }
    }
    // `taken` is finite, so the loop above always returns.
    stem
}

/// The slug of one attempt of a group: the instruction's stem shortened so that `-<suffix>`
/// (the attempt's agent and model, kebab-cased) fits within [`MAX_SLUG_LEN`], then made unique
/// as [`slugify`] does. `claude:opus` on "Fix the login bug" gives `fix-the-login-bug-claude-opus`.
pub fn attempt_slug(prompt: &str, suffix: &str, taken: &BTreeSet<String>) -> String {
    let suffix = cut(&kebab(suffix), MAX_SLUG_LEN / 2);
    let stem = kebab(prompt);
    let stem = if stem.is_empty() {
        FALLBACK_SLUG.to_string()
    } else {
        stem
    };
    let named = |suffix: &str| {
        if suffix.is_empty() {
            cut(&stem, MAX_SLUG_LEN)
        } else {
            format!("{}-{suffix}", cut(&stem, MAX_SLUG_LEN - suffix.len() - 1))
        }
    };
    let first = named(&suffix);
    if !taken.contains(&first) {
        return first;
    }
    for n in 2u64.. {
        let candidate = named(format!("{suffix}-{n}").trim_start_matches('-'));
        if !taken.contains(&candidate) {
            return candidate;
        }
    }
    // `taken` is finite, so the loop above always returns.
    first
}

fn kebab(prompt: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in prompt.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('-');
            }
            gap = false;
            out.push(c.to_ascii_lowercase());
        } else {
            gap = true;
        }
    }
    out
}

/// `slug` (kebab-case, no leading/trailing `-`) shortened to at most `max` chars, at the last `-`
/// within the limit when the cut would split a word.
fn cut(slug: &str, max: usize) -> String {
    if slug.len() <= max {
        return slug.to_string();
    }
    // ASCII only: byte indices are char indices.
    let head = &slug[..max];
    let at_boundary = slug.as_bytes().get(max) == Some(&b'-');
    let cut = if at_boundary {
        head
    } else {
        match head.rfind('-') {
            Some(pos) if pos > 0 => &head[..pos],
            _ => head,
        }
    };
    cut.trim_end_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attempt_slug_keeps_its_agent_suffix_and_is_unique() {
        let long = "Refactor the whole authentication layer to use the new session tokens";
        let slug = attempt_slug(long, "claude:opus", &none());
        assert!(slug.ends_with("-claude-opus"), "{slug}");
        assert!(slug.len() <= MAX_SLUG_LEN, "{slug}");
        let taken: BTreeSet<String> = [slug.clone()].into_iter().collect();
        let again = attempt_slug(long, "claude:opus", &taken);
        assert!(again.ends_with("-claude-opus-2"), "{again}");
        assert!(again.len() <= MAX_SLUG_LEN, "{again}");
        assert_eq!(attempt_slug("日本語", "codex", &none()), "task-codex");
    }
    use proptest::prelude::*;

    fn none() -> BTreeSet<String> {
        BTreeSet::new()
    }

    fn taken(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn kebab_case() {
        assert_eq!(slugify("Fix the login bug!", &none()), "fix-the-login-bug");
        assert_eq!(slugify("  --Add  README.md--  ", &none()), "add-readme-md");
        assert_eq!(slugify("ログインのバグを直して", &none()), "task");
        assert_eq!(slugify("", &none()), "task");
        assert_eq!(slugify("fix ログイン bug", &none()), "fix-bug");
        assert_eq!(slugify("café au lait", &none()), "caf-au-lait");
    }

    #[test]
    fn long_prompts_are_cut_at_a_word_boundary() {
        let slug = slugify(
            "Refactor the session manager so that every worktree is pruned",
            &none(),
        );
        assert_eq!(slug, "refactor-the-session-manager-so-that");
        assert!(slug.len() <= MAX_SLUG_LEN);
        // Exactly at a boundary: the 40 chars are kept.
        let exact = "aaaaaaaaa bbbbbbbbb ccccccccc dddddddddd eee";
        assert_eq!(
            slugify(exact, &none()),
            "aaaaaaaaa-bbbbbbbbb-ccccccccc-dddddddddd"
        );
        // One long word: a hard cut.
        let word = "x".repeat(60);
        assert_eq!(slugify(&word, &none()), "x".repeat(40));
    }

    #[test]
    fn collisions_get_numbers() {
        assert_eq!(slugify("fix bug", &taken(&["fix-bug"])), "fix-bug-2");
        assert_eq!(
            slugify("fix bug", &taken(&["fix-bug", "fix-bug-2"])),
            "fix-bug-3"
        );
        assert_eq!(slugify("日本語", &taken(&["task"])), "task-2");
        let long = "y".repeat(40);
        let with_suffix = slugify(&long, &taken(&[long.as_str()]));
        assert_eq!(with_suffix, format!("{}-2", "y".repeat(38)));
    }

    proptest! {
        #[test]
        fn always_a_valid_free_slug(prompt in ".{0,120}", extra in proptest::collection::btree_set("[a-z-]{1,12}", 0..5)) {
            let mut taken = extra;
            let first = slugify(&prompt, &BTreeSet::new());
            taken.insert(first.clone());
            let slug = slugify(&prompt, &taken);
            prop_assert!(!taken.contains(&slug));
            for s in [&first, &slug] {
                prop_assert!(!s.is_empty() && s.len() <= MAX_SLUG_LEN, "{s}");
                prop_assert!(!s.starts_with('-') && !s.ends_with('-'), "{s}");
                prop_assert!(!s.contains("--"), "{s}");
                prop_assert!(s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{s}");
            }
        }
    }
}
