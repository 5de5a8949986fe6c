//! Carrying ignored files (dependencies, local config) from the main checkout into a new
//! worktree, minus build output, and the notice the agent gets when they are shared symlinks.

use std::io;
use std::path::{Path, PathBuf};

use super::GitError;
use super::runner::Git;

/// How ignored files reach a new worktree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IgnoredMode {
    /// A symlink to the main checkout's copy (shared; see [`SHARED_SYMLINK_NOTICE`]).
    #[default]
    Symlink,
    /// A full copy (symlinks inside are copied as symlinks, permissions kept).
    Copy,
    /// Nothing is carried.
    None,
}

/// Build output and caches that are never carried (matched against the last path segment;
/// `*x` = suffix). User patterns from the config are evaluated after these (`!x` re-includes).
pub const DEFAULT_IGNORED_EXCLUDES: &[&str] = &[
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".astro",
    ".output",
    ".docusaurus",
    ".expo",
    ".vercel",
    ".netlify",
    ".wrangler",
    ".turbo",
    ".parcel-cache",
    ".vite",
    ".rollup.cache",
    ".angular",
    ".swc",
    ".cache",
    ".eslintcache",
    "*.tsbuildinfo",
    "dist",
    "build",
    "out",
    "storybook-static",
    "coverage",
    ".nyc_output",
    "target",
    ".gradle",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
];

/// Prepended to the agent's system prompt when ignored files are carried as symlinks.
pub const SHARED_SYMLINK_NOTICE: &str = "\
Shared paths in this worktree: some git-ignored paths here (for example installed dependencies \
or local config files) are symbolic links to the same paths in the repository's main checkout, \
shared with the user and with other sessions. Check a path with `test -L <path>` before writing \
to it; do not assume a path is private because it is inside your worktree.
- Reading, running or building against a shared path without writing into it needs nothing.
- Before writing into a shared path (installing or upgrading dependencies, regenerating files, \
editing a config), detach that path first so that the change stays in your worktree:
  directory: target=\"$(readlink <path>)\" && rm <path> && cp -Rp \"$target/.\" <path>
  file:      target=\"$(readlink <path>)\" && rm <path> && cp -p \"$target\" <path>
  (`rm <path>` without -r and without a trailing slash removes only the link.)
- Never run `rm -rf <path>/` or `rm -rf <path>/*` on a shared path: it follows the link and \
deletes the main checkout's copy.
- Never stage with `git add -A` or `git add .`: the links show up as untracked files and would \
be committed. Stage explicit paths (`git add <file>...`).";

/// Whether the ignored entry `entry` (relative to the checkout, a trailing `/` allowed) is build
/// output that is not carried: [`DEFAULT_IGNORED_EXCLUDES`] followed by `extra`, the last
/// matching pattern wins, `!x` negates. A pattern without `/` matches the entry's last segment,
/// one with `/` the whole path; a leading `*` makes it a suffix match.
pub fn is_excluded(entry: &str, extra: &[String]) -> bool {
    let entry = entry.trim_end_matches('/');
    let last = entry.rsplit('/').next().unwrap_or(entry);
    let mut excluded = false;
    let patterns = DEFAULT_IGNORED_EXCLUDES
        .iter()
        .copied()
        .chain(extra.iter().map(String::as_str));
    for pattern in patterns {
        let pattern = pattern.trim();
        let (negated, pattern) = match pattern.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, pattern),
        };
        let pattern = pattern.trim_start_matches('/').trim_end_matches('/');
        if pattern.is_empty() {
            continue;
        }
        let subject = if pattern.contains('/') { entry } else { last };
        let hit = match pattern.strip_prefix('*') {
            Some(suffix) => subject.ends_with(suffix),
            None => subject == pattern,
        };
        if hit {
            excluded = !negated;
        }
    }
    excluded
}

/// `.git` and `.codiva` (and anything below them) are never carried, matched by the first path
/// segment: `.codiva/`'s own `.gitignore` makes git list `.codiva/worktrees/` separately.
pub fn is_internal(entry: &str) -> bool {
    let first = entry.split('/').next().unwrap_or(entry);
    first == ".git" || first == ".codiva"
}

/// The entries of `git ls-files --others --ignored --exclude-standard --directory -z` that are
/// carried, without their trailing `/`.
pub fn carried_entries(listing: &[String], extra: &[String]) -> Vec<String> {
    listing
        .iter()
        .filter(|entry| !is_internal(entry) && !is_excluded(entry, extra))
        .map(|entry| entry.trim_end_matches('/').to_string())
        .filter(|entry| !entry.is_empty())
        .collect()
}

/// Carries the ignored files of `root` into `worktree`. Each entry is best effort: failures
/// become warnings. Returns the carried entries (relative paths) and the warnings.
pub(crate) async fn carry_ignored(
    root: &Path,
    worktree: &Path,
    mode: IgnoredMode,
    extra: &[String],
) -> (Vec<PathBuf>, Vec<String>) {
    if mode == IgnoredMode::None {
        return (Vec::new(), Vec::new());
    }
    let listing = match list_ignored(root).await {
        Ok(listing) => listing,
        Err(err) => {
            return (
                Vec::new(),
                vec![format!("ignored files not carried: {err}")],
            );
        }
    };
    let entries = carried_entries(&listing, extra);
    let root = root.to_path_buf();
    let worktree = worktree.to_path_buf();
    let task = tokio::task::spawn_blocking(move || carry_entries(&root, &worktree, &entries, mode));
    match task.await {
        Ok(result) => result,
        Err(err) => (
            Vec::new(),
            vec![format!("ignored files not carried: {err}")],
        ),
    }
}

async fn list_ignored(root: &Path) -> Result<Vec<String>, GitError> {
    let output = Git::new(root)
        .args([
            "ls-files",
            "--others",
            "--ignored",
            "--exclude-standard",
            "--directory",
            "-z",
        ])
        .run()
        .await?;
    Ok(output.nul_fields())
}

fn carry_entries(
    root: &Path,
    worktree: &Path,
    entries: &[String],
    mode: IgnoredMode,
) -> (Vec<PathBuf>, Vec<String>) {
    let mut carried = Vec::new();
    let mut warnings = Vec::new();
    for entry in entries {
        let src = root.join(entry);
        let dst = worktree.join(entry);
        if dst.symlink_metadata().is_ok() {
            // Already there (a checked-out file of the same name, or carried by a parent entry).
            continue;
        }
        let result = match mode {
            IgnoredMode::Symlink => link_entry(&src, &dst),
            IgnoredMode::Copy => copy_entry(&src, &dst),
            IgnoredMode::None => Ok(()),
        };
        match result {
            Ok(()) => carried.push(PathBuf::from(entry)),
            Err(err) => {
                tracing::warn!("cannot carry {entry}: {err}");
                warnings.push(format!("cannot carry {entry}: {err}"));
            }
        }
    }
    (carried, warnings)
}

fn link_entry(src: &Path, dst: &Path) -> io::Result<()> {
    if let Some(parent) = dst.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::os::unix::fs::symlink(src, dst)
}

fn copy_entry(src: &Path, dst: &Path) -> io::Result<()> {
    if let Some(parent) = dst.parent() {
        std::fs::create_dir_all(parent)?;
    }
    copy_tree(src, dst)
}

/// Copies `src` to `dst` recursively: symlinks are recreated as symlinks (never followed),
/// file permissions are kept.
fn copy_tree(src: &Path, dst: &Path) -> io::Result<()> {
    let meta = src.symlink_metadata()?;
    let kind = meta.file_type();
    if kind.is_symlink() {
        std::os::unix::fs::symlink(std::fs::read_link(src)?, dst)
    } else if kind.is_dir() {
        std::fs::create_dir(dst)?;
        for child in std::fs::read_dir(src)? {
            let child = child?;
            copy_tree(&child.path(), &dst.join(child.file_name()))?;
        }
        std::fs::set_permissions(dst, meta.permissions())
    } else if kind.is_file() {
        std::fs::copy(src, dst).map(|_| ())
    } else {
        // Sockets, FIFOs, devices: nothing sensible to copy.
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn defaults_exclude_build_output_not_dependencies() {
        assert_eq!(DEFAULT_IGNORED_EXCLUDES.len(), 31);
        for entry in [
            "target/",
            "dist/",
            "app.tsbuildinfo",
            "packages/a/dist/",
            ".next/",
        ] {
            assert!(is_excluded(entry, &[]), "{entry}");
        }
        for entry in [
            "node_modules/",
            ".env",
            "packages/a/node_modules/",
            "distribution/",
        ] {
            assert!(!is_excluded(entry, &[]), "{entry}");
        }
    }

    #[test]
    fn user_patterns_append_negate_and_last_match_wins() {
        assert!(!is_excluded("dist/", &s(&["!dist"])));
        assert!(is_excluded("dist/", &s(&["!dist", "dist"])));
        assert!(is_excluded(".venv/", &s(&[".venv"])));
        assert!(is_excluded("x/gen.log", &s(&["*.log"])));
        // A pattern with '/' matches the whole path only.
        assert!(is_excluded(
            "packages/a/vendor/",
            &s(&["packages/a/vendor"])
        ));
        assert!(!is_excluded(
            "packages/b/vendor/",
            &s(&["packages/a/vendor"])
        ));
        assert!(!is_excluded("packages/a/dist/", &s(&["!packages/a/dist"])));
        assert!(is_excluded("packages/b/dist/", &s(&["!packages/a/dist"])));
    }

    #[test]
    fn internal_entries_by_first_segment() {
        let listing = s(&[
            ".codiva/",
            ".codiva/.gitignore",
            ".codiva/worktrees/",
            ".git",
            "node_modules/",
            "target/",
            ".env",
        ]);
        assert_eq!(carried_entries(&listing, &[]), s(&["node_modules", ".env"]));
        assert!(!is_internal(".codivarc"));
    }

    #[test]
    fn notice_has_the_required_anchors() {
        for anchor in [
            "test -L",
            "target=\"$(readlink <path>)\" && rm <path> && cp -Rp \"$target/.\" <path>",
            "rm -rf <path>/",
            "<path>/*",
            "git add -A",
            "git add .",
            "needs nothing",
        ] {
            assert!(SHARED_SYMLINK_NOTICE.contains(anchor), "{anchor}");
        }
    }

    #[test]
    fn copy_tree_keeps_symlinks_and_modes() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        std::fs::create_dir_all(src.join("sub")).unwrap();
        std::fs::write(src.join("sub/secret"), "x").unwrap();
        std::fs::set_permissions(
            src.join("sub/secret"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
        std::os::unix::fs::symlink("..", src.join("sub/up")).unwrap();
        let dst = tmp.path().join("dst");
        copy_tree(&src, &dst).unwrap();
        assert_eq!(
            std::fs::read_to_string(dst.join("sub/secret")).unwrap(),
            "x"
        );
        let mode = std::fs::metadata(dst.join("sub/secret"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(
            std::fs::read_link(dst.join("sub/up")).unwrap(),
            Path::new("..")
        );
    }
}
