//! Code rows painted by class, at the cost of what is on screen and off the UI thread.
//!
//! Markdown renders code plain and records which rows show which code line ([`CodeRow`]).
//! When such a row is drawn, [`restyle`] paints it from the cache of highlighted lines, or asks
//! the highlighter thread for the block up to a little past that line and draws it plain this
//! once; when the thread has more, the waker ([`set_waker`]) asks the UI for a frame. A
//! grammar's state carries from a block's first line, so the thread keeps each block's parse
//! state and goes on from where it stopped: looking at the top of a 2,000-line block
//! highlights its first rows only.
//!
//! syntect's grammars are costly on the pure-Rust regex engine (tens to hundreds of µs a line,
//! and each grammar's compiled regexes take several MB, TypeScript's about 50 MB), so the
//! thread loads the set on its first block and drops it again after [`IDLE_DROP`] without
//! work: a session that shows code now and then does not keep the grammars for good. Lines
//! that are ASCII are parsed with a copy of the grammar cut to ASCII, which compiles several
//! times faster and draws the same ([`super::ascii_grammar`]).

use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use ratatui::text::{Line, Span};

use super::highlight::{Highlighter, Runs, Syntaxes};

/// Lines highlighted past the last one asked for (a screen's worth and some scrolling).
const AHEAD: usize = 64;
/// Highlighted lines kept; past this the cache starts over (what is on screen comes back).
const CACHE_LINES: usize = 50_000;
/// The syntax set and its compiled grammars are dropped after this long without work.
pub const IDLE_DROP: Duration = Duration::from_secs(30);

/// One code block as Markdown rendered it: the fence's language and its sanitised lines.
#[derive(Debug)]
pub struct Code {
    language: String,
    lines: Vec<String>,
    key: u64,
}

impl Code {
    pub(crate) fn new(language: &str, lines: Vec<String>) -> Self {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        language.hash(&mut hasher);
        lines.hash(&mut hasher);
        Code {
            language: language.to_owned(),
            lines,
            key: hasher.finish(),
        }
    }

    pub(crate) fn line(&self, line: usize) -> Option<&str> {
        self.lines.get(line).map(String::as_str)
    }
}

/// A row of rendered Markdown that shows a code line: the code is the row's span `from_end`
/// places from its end (a cut line ends with `…` after it). Counting from the end keeps it
/// right when a row is indented later.
#[derive(Debug, Clone)]
pub struct CodeRow {
    pub row: usize,
    pub(crate) from_end: usize,
    pub(crate) code: Arc<Code>,
    pub(crate) line: usize,
}

/// What the cache knows of one block.
#[derive(Default)]
struct Block {
    /// Classes of the lines highlighted so far.
    runs: Vec<Runs>,
    /// The parse state after `runs` (`None` while the thread holds it, or before the first
    /// piece of work).
    highlighter: Option<Highlighter>,
    /// An unknown language or a grammar that failed: drawn plain.
    plain: bool,
    /// Lines asked for (exclusive).
    wanted: usize,
    queued: bool,
}

#[derive(Default)]
struct Cache {
    blocks: HashMap<u64, Block>,
    lines: usize,
    queue: VecDeque<Arc<Code>>,
    busy: bool,
    worker: bool,
}

struct Shared {
    cache: Mutex<Cache>,
    changed: Condvar,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| Shared {
        cache: Mutex::new(Cache::default()),
        changed: Condvar::new(),
    })
}

type Waker = Box<dyn Fn() + Send + Sync>;
static WAKER: OnceLock<Waker> = OnceLock::new();

/// What the highlighter thread calls when it has highlighted more (the UI loop's "draw
/// again"). Set once per process.
pub fn set_waker(waker: impl Fn() + Send + Sync + 'static) {
    let _ = WAKER.set(Box::new(waker));
}

/// The classes of `line` if they are done; otherwise asks for them and says `None`.
fn lookup(code: &Arc<Code>, line: usize) -> Option<Runs> {
    let shared = shared();
    let mut cache = shared.cache.lock().ok()?;
    let block = cache.blocks.entry(code.key).or_default();
    if block.plain {
        return None;
    }
    if let Some(runs) = block.runs.get(line) {
        return Some(runs.clone());
    }
    block.wanted = block.wanted.max((line + AHEAD).min(code.lines.len()));
    if !block.queued {
        block.queued = true;
        cache.queue.push_back(code.clone());
        if !cache.worker {
            let spawned = std::thread::Builder::new()
                .name("codiva-highlight".into())
                .spawn(worker);
            cache.worker = spawned.is_ok();
        }
        shared.changed.notify_all();
    }
    None
}

/// The highlighter thread: takes blocks off the queue and highlights each up to the lines
/// wanted, with the syntax set it loads when work comes and drops when idle.
fn worker() {
    let shared = shared();
    let mut syntaxes: Option<Syntaxes> = None;
    loop {
        let Some((code, wanted, highlighter, from)) = next_job(shared, &mut syntaxes) else {
            return;
        };
        let syntaxes = syntaxes.get_or_insert_with(Syntaxes::load);
        let mut highlighter =
            highlighter.unwrap_or_else(|| Highlighter::new(&code.language, syntaxes));
        syntaxes.prepare(&highlighter);
        let mut runs = Vec::new();
        for line in code.lines.iter().take(wanted).skip(from) {
            match highlighter.classes(line, syntaxes) {
                Some(line_runs) => runs.push(line_runs),
                None => break,
            }
        }
        let plain = highlighter.is_plain();
        if let Ok(mut cache) = shared.cache.lock() {
            if cache.lines > CACHE_LINES {
                cache.blocks.clear();
                cache.lines = 0;
            }
            cache.lines += runs.len();
            let block = cache.blocks.entry(code.key).or_default();
            block.plain = plain;
            if block.runs.len() == from {
                block.runs.extend(runs);
                block.highlighter = Some(highlighter);
            } else {
                // The cache started over meanwhile: this block starts over too.
                block.runs.clear();
                block.highlighter = None;
            }
            block.queued = false;
            if !plain && block.runs.len() < block.wanted {
                block.queued = true;
                cache.queue.push_back(code);
            }
        }
        if let Some(wake) = WAKER.get() {
            wake();
        }
    }
}

type Job = (Arc<Code>, usize, Option<Highlighter>, usize);

/// Waits for the next block to work on; drops the syntax set after [`IDLE_DROP`] idle.
fn next_job(shared: &Shared, syntaxes: &mut Option<Syntaxes>) -> Option<Job> {
    let mut cache = shared.cache.lock().ok()?;
    loop {
        if let Some(code) = cache.queue.pop_front() {
            cache.busy = true;
            let block = cache.blocks.entry(code.key).or_default();
            let from = block.runs.len();
            return Some((code, block.wanted, block.highlighter.take(), from));
        }
        cache.busy = false;
        shared.changed.notify_all();
        let (next, timeout) = shared.changed.wait_timeout(cache, IDLE_DROP).ok()?;
        cache = next;
        if timeout.timed_out() && cache.queue.is_empty() {
            *syntaxes = None;
        }
    }
}

/// Waits until every line asked for is highlighted (tests and the bench).
pub fn wait_idle() {
    let shared = shared();
    let Ok(mut cache) = shared.cache.lock() else {
        return;
    };
    while cache.busy || !cache.queue.is_empty() {
        cache = match shared.changed.wait(cache) {
            Ok(cache) => cache,
            Err(_) => return,
        };
    }
}

/// `line` (a rendered row) with its code painted by class, if that line is highlighted;
/// `None` draws the row as it is (plain, or not highlighted yet: then it is asked for).
pub fn restyle(line: &Line<'static>, row: &CodeRow) -> Option<Line<'static>> {
    let index = line.spans.len().checked_sub(row.from_end)?;
    let shown = line.spans.get(index)?.content.as_ref();
    let source = row.code.line(row.line)?;
    if shown.is_empty() || !source.starts_with(shown) {
        return None;
    }
    let runs = lookup(&row.code, row.line)?;
    let mut spans = Vec::with_capacity(line.spans.len() + runs.len());
    spans.extend(line.spans[..index].iter().cloned());
    for (start, end, class) in runs {
        let (start, end) = (start as usize, (end as usize).min(shown.len()));
        if start >= end {
            break;
        }
        spans.push(Span::styled(shown[start..end].to_owned(), class.style()));
    }
    spans.extend(line.spans[index + 1..].iter().cloned());
    Some(Line::from(spans).style(line.style))
}
