//! Reading process facts from `/proc` (Linux). On other systems every query answers `None`
//! (or an empty list), which makes callers take their conservative path: the registry never
//! kills anything it cannot identify.

use std::io;

/// The fields of `/proc/<pid>/stat` that codiva needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcStat {
    /// Field 1.
    pub pid: u32,
    /// Field 3: `R`, `S`, `D`, `Z`, `T`, `X`, …
    pub state: char,
    /// Field 4.
    pub ppid: u32,
    /// Field 5: the process group id.
    pub pgid: u32,
    /// Fields 14 and 15: CPU time spent in user and kernel mode, in clock ticks.
    pub cpu_ticks: u64,
    /// Field 22: the start time after boot, in clock ticks. Together with the pid and the boot
    /// id it identifies a process across pid reuse.
    pub start_time: u64,
}

impl ProcStat {
    /// Whether the process has exited (a zombie waiting to be reaped, or dead).
    pub fn is_exited(&self) -> bool {
        matches!(self.state, 'Z' | 'X' | 'x')
    }
}

/// Parses the text of `/proc/<pid>/stat`.
///
/// The second field (`comm`, in parentheses) may itself contain spaces and `)`, so the fields
/// after it are found from the *last* `)`.
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    if close < open {
        return None;
    }
    let pid = text[..open].trim().parse().ok()?;
    // Fields 3.. follow the comm field; index 0 here is field 3.
    let rest: Vec<&str> = text[close + 1..].split_ascii_whitespace().collect();
    let field = |n: usize| rest.get(n - 3).copied();
    let mut state_chars = field(3)?.chars();
    let state = state_chars.next()?;
    if state_chars.next().is_some() {
        return None;
    }
    Some(ProcStat {
        pid,
        state,
        ppid: field(4)?.parse().ok()?,
        pgid: field(5)?.parse().ok()?,
        cpu_ticks: field(14)?
            .parse::<u64>()
            .ok()?
            .saturating_add(field(15)?.parse().ok()?),
        start_time: field(22)?.parse().ok()?,
    })
}

/// Reads `/proc/<pid>/stat`; `None` if the process does not exist (or on non-Linux systems).
pub fn read_stat(pid: u32) -> Option<ProcStat> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

/// The stat of the current process.
pub fn read_self_stat() -> io::Result<ProcStat> {
    if !cfg!(target_os = "linux") {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "/proc is only read on Linux",
        ));
    }
    let text = std::fs::read_to_string("/proc/self/stat")?;
    parse_stat(&text).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("unparseable /proc/self/stat: {text:?}"),
        )
    })
}

/// The kernel's boot id (`/proc/sys/kernel/random/boot_id`), which changes on every boot.
pub fn boot_id() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let text = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let id = text.trim();
    (!id.is_empty()).then(|| id.to_owned())
}

/// The processes currently in process group `pgid` that have not exited (zombies are left out:
/// they are dead and only wait for their parent to reap them). Empty on non-Linux systems.
pub fn live_group_members(pgid: u32) -> Vec<u32> {
    if !cfg!(target_os = "linux") {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut members: Vec<u32> = entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(read_stat)
        .filter(|stat| stat.pgid == pgid && !stat.is_exited())
        .map(|stat| stat.pid)
        .collect();
    members.sort_unstable();
    members
}

/// What one process group uses: the sums over its live members.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupUsage {
    /// Resident memory, in bytes.
    pub rss_bytes: u64,
    /// CPU time used so far by the members alive now, in clock ticks ([`clock_ticks`] a second).
    pub cpu_ticks: u64,
    pub processes: u32,
}

/// The resident pages of `/proc/<pid>/statm` (its second field).
pub fn parse_statm_resident(text: &str) -> Option<u64> {
    text.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// Which of `roots` (agent pids, each its own group's leader) each process belongs to: the
/// members of a root's process group, and every process whose parent chain reaches one of
/// those — Claude Code runs its Bash tools in sessions (and groups) of their own, so a group
/// alone misses them. `procs` is `(pid, ppid, pgid)` of every live process.
pub fn tree_owners(
    procs: &[(u32, u32, u32)],
    roots: &[u32],
) -> std::collections::HashMap<u32, u32> {
    use std::collections::HashMap;
    let parent: HashMap<u32, (u32, u32)> = procs
        .iter()
        .map(|(pid, ppid, pgid)| (*pid, (*ppid, *pgid)))
        .collect();
    let mut owners: HashMap<u32, u32> = HashMap::new();
    for (pid, _, _) in procs {
        // Up the parent chain until a root's group (or a process already placed); bounded
        // against a cycle read from a changing /proc.
        let mut chain = Vec::new();
        let mut at = *pid;
        let owner = loop {
            if let Some(owner) = owners.get(&at) {
                break Some(*owner);
            }
            let Some((ppid, pgid)) = parent.get(&at) else {
                break None;
            };
            chain.push(at);
            if roots.contains(pgid) {
                break Some(*pgid);
            }
            if *ppid <= 1 || chain.len() > 256 {
                break None;
            }
            at = *ppid;
        };
        if let Some(owner) = owner {
            for member in chain {
                owners.insert(member, owner);
            }
        }
    }
    owners
}

/// One pass over `/proc` for every agent in `roots` at once (a stat per process, a statm per
/// member): each agent's whole tree — its process group and every descendant (by parent pid),
/// [`tree_owners`] — of processes that have not exited, summed, keyed by the root. A root
/// without live members is left out. Empty on non-Linux systems.
pub fn group_usage(roots: &[u32]) -> std::collections::HashMap<u32, GroupUsage> {
    UsageScan::default().group_usage(roots)
}

/// [`group_usage`] pass after pass, reading the stat of each process outside every agent's
/// tree only once: the manager samples every 2 s, and a machine's other processes are most of
/// `/proc`. A process outside the trees stays outside while it lives (it could only enter
/// one by being reparented into it, which Linux does only to an ancestor or init, or by
/// `setpgid` into an agent's group, which only processes of that group's session — the
/// agents' own — may do), so it is skipped while it is the same process: the same pid with
/// the same `/proc` inode, which a new process never inherits. When the roots change every
/// process is read again (a process read before it became an agent was outside then).
#[derive(Debug, Default)]
pub struct UsageScan {
    roots: Vec<u32>,
    /// Pid → (inode of `/proc/<pid>`, parent pid, group) of the processes outside the trees.
    outside: std::collections::HashMap<u32, (u64, u32, u32)>,
    /// The pids whose stat the last pass read.
    read: Vec<u32>,
}

impl UsageScan {
    /// See [`group_usage`].
    pub fn group_usage(&mut self, roots: &[u32]) -> std::collections::HashMap<u32, GroupUsage> {
        use std::os::unix::fs::DirEntryExt;
        let mut usage = std::collections::HashMap::new();
        if !cfg!(target_os = "linux") || roots.is_empty() {
            return usage;
        }
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return usage;
        };
        // The same agents in another order are the same roots (the manager lists them from a
        // map): only a change of agents forgets what was outside.
        let mut sorted = roots.to_vec();
        sorted.sort_unstable();
        if self.roots != sorted {
            self.roots = sorted;
            self.outside.clear();
        }
        let mut stats: Vec<(ProcStat, u64)> = Vec::new();
        self.read.clear();
        let mut procs: Vec<(u32, u32, u32)> = Vec::new();
        let mut outside = std::collections::HashMap::with_capacity(self.outside.len());
        for entry in entries.filter_map(Result::ok) {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let inode = entry.ino();
            match self.outside.get(&pid) {
                Some(&(known, ppid, pgid)) if known == inode => {
                    procs.push((pid, ppid, pgid));
                    outside.insert(pid, (inode, ppid, pgid));
                }
                _ => {
                    self.read.push(pid);
                    if let Some(stat) = read_stat(pid).filter(|stat| !stat.is_exited()) {
                        procs.push((stat.pid, stat.ppid, stat.pgid));
                        stats.push((stat, inode));
                    }
                }
            }
        }
        let owners = tree_owners(&procs, roots);
        let page = page_size();
        for (stat, inode) in &stats {
            let Some(root) = owners.get(&stat.pid) else {
                outside.insert(stat.pid, (*inode, stat.ppid, stat.pgid));
                continue;
            };
            let pid = stat.pid;
            let resident = std::fs::read_to_string(format!("/proc/{pid}/statm"))
                .ok()
                .and_then(|text| parse_statm_resident(&text))
                .unwrap_or(0);
            let group: &mut GroupUsage = usage.entry(*root).or_default();
            group.rss_bytes = group
                .rss_bytes
                .saturating_add(resident.saturating_mul(page));
            group.cpu_ticks = group.cpu_ticks.saturating_add(stat.cpu_ticks);
            group.processes += 1;
        }
        self.outside = outside;
        usage
    }

    /// The pids whose stat the last pass read (the others were known to be outside).
    pub fn read_last_pass(&self) -> &[u32] {
        &self.read
    }
}

/// Clock ticks a second (the unit of [`ProcStat::cpu_ticks`]).
pub fn clock_ticks() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|t| *t > 0).unwrap_or(100)
}

fn page_size() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(size).ok().filter(|s| *s > 0).unwrap_or(4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "4242 (we ird) (name)) S 1 4242 4242 0 -1 4194560 29047 375247 0 203 \
                          33 160 882 716 20 0 13 0 987654 41332736 2837 18446744073709551615 1 1";

    #[test]
    fn parses_comm_with_spaces_and_parens() {
        let stat = parse_stat(SAMPLE).unwrap();
        assert_eq!(
            stat,
            ProcStat {
                pid: 4242,
                state: 'S',
                ppid: 1,
                pgid: 4242,
                cpu_ticks: 33 + 160,
                start_time: 987654,
            }
        );
    }

    #[test]
    fn rejects_truncated_stat() {
        assert_eq!(parse_stat("12 (x) S 1 2"), None);
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat(""), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn reads_own_stat_and_boot_id() {
        let me = read_self_stat().unwrap();
        assert_eq!(me.pid, std::process::id());
        assert_eq!(read_stat(me.pid).unwrap().start_time, me.start_time);
        assert!(boot_id().is_some());
    }

    #[test]
    fn statm_resident_is_the_second_field() {
        assert_eq!(
            parse_statm_resident("10432 2837 771 5 0 1990 0\n"),
            Some(2837)
        );
        assert_eq!(parse_statm_resident("10432"), None);
        assert_eq!(parse_statm_resident(""), None);
    }

    #[test]
    fn an_agents_tree_includes_tools_in_sessions_of_their_own() {
        // 100: the agent (its group 100) with a watcher in its group; 200: a Bash tool it
        // started with setsid (group 200), whose child 201 is in that group; 300: someone
        // else's; 400: another agent.
        let procs = [
            (100, 50, 100),
            (101, 1, 100),
            (200, 100, 200),
            (201, 200, 200),
            (300, 1, 300),
            (400, 50, 400),
            (401, 400, 401),
        ];
        let owners = tree_owners(&procs, &[100, 400]);
        let of = |pid: u32| owners.get(&pid).copied();
        assert_eq!(of(100), Some(100));
        assert_eq!(of(101), Some(100), "in the agent's group");
        assert_eq!(of(200), Some(100), "a tool in a session of its own");
        assert_eq!(of(201), Some(100), "the tool's own child");
        assert_eq!(of(300), None);
        assert_eq!(of(401), Some(400));
        assert_eq!(
            of(50),
            None,
            "the agent's parent (codiva) is not the agent's"
        );
    }

    /// A live tree: a group leader whose child runs in a session of its own is counted whole.
    #[cfg(target_os = "linux")]
    #[test]
    fn samples_a_child_in_a_session_of_its_own() {
        use std::os::unix::process::CommandExt;
        let mut leader = std::process::Command::new("/bin/sh")
            .args(["-c", "setsid sleep 30 & echo started; wait"])
            .stdout(std::process::Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(leader.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let pid = leader.id();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let counted = loop {
            let counted = group_usage(&[pid]).get(&pid).map_or(0, |g| g.processes);
            if counted >= 2 || std::time::Instant::now() > deadline {
                break counted;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        end_with_children(&mut leader);
        assert_eq!(counted, 2, "the shell and its setsid child");
    }

    /// Ends a test's shell and its children (the setsid'd sleep is not in its group).
    fn end_with_children(leader: &mut std::process::Child) {
        let pid = leader.id();
        let children =
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
        for child in children.split_whitespace() {
            let _ = std::process::Command::new("kill").arg(child).status();
        }
        let _ = leader.kill();
        let _ = leader.wait();
    }

    /// A second pass reads only what may be in a tree: not this test's process, which is
    /// outside the shell's; a descendant that appears later is still found and counted.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_scan_reads_an_outsider_once_and_still_finds_new_members() {
        use std::io::{BufRead, Write};
        use std::os::unix::process::CommandExt;
        use std::process::Stdio;
        let mut leader = std::process::Command::new("sh")
            .args(["-c", "read go; setsid sleep 30 & echo started; wait"])
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = leader.id();
        let me = std::process::id();
        let mut scan = UsageScan::default();
        assert_eq!(scan.group_usage(&[pid])[&pid].processes, 1, "the shell");
        assert!(scan.read_last_pass().contains(&me));
        assert_eq!(scan.group_usage(&[pid])[&pid].processes, 1);
        assert!(
            scan.read_last_pass().contains(&pid),
            "members are read each pass"
        );
        assert!(
            !scan.read_last_pass().contains(&me),
            "an outsider is read once"
        );
        // The shell starts a child in a session (and group) of its own.
        let mut stdin = leader.stdin.take().unwrap();
        writeln!(stdin, "go").unwrap();
        let mut line = String::new();
        std::io::BufReader::new(leader.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let counted = scan.group_usage(&[pid])[&pid].processes;
        // Other roots: every process is read again.
        scan.group_usage(&[pid, u32::MAX]);
        assert!(scan.read_last_pass().contains(&me));
        end_with_children(&mut leader);
        // The same roots in another order: nothing read again.
        scan.group_usage(&[u32::MAX, pid]);
        assert!(!scan.read_last_pass().contains(&me));
        assert_eq!(counted, 2, "the shell and its setsid child");
    }

    /// The test's own process group, read the way the manager samples agents: this process is
    /// in it, so it has at least one member, resident memory and (after some work) CPU time.
    #[cfg(target_os = "linux")]
    #[test]
    fn samples_the_tests_own_process_group() {
        let me = read_self_stat().unwrap();
        // Burn a little CPU so the group has ticks to show.
        let started = std::time::Instant::now();
        let mut x = 0u64;
        while started.elapsed() < std::time::Duration::from_millis(50) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let usage = group_usage(&[me.pgid, u32::MAX]);
        assert!(!usage.contains_key(&u32::MAX), "no process has that group");
        let group = usage[&me.pgid];
        assert!(group.processes >= 1);
        // At least this process's own resident memory, as its status file says it.
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let own_kb: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse().ok())
            .unwrap();
        assert!(
            group.rss_bytes >= own_kb * 1024 / 2,
            "{group:?} vs {own_kb} kB"
        );
        let own_ticks = read_self_stat().unwrap().cpu_ticks;
        assert!(group.cpu_ticks >= own_ticks.min(me.cpu_ticks), "{group:?}");
        assert!(clock_ticks() > 0);
    }
}
