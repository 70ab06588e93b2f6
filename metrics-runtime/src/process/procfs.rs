//! Reading the figures of one process from Linux's `/proc`, field by field.
//!
//! Every parser takes the file's text (or bytes) and returns `None` for a field it cannot read:
//! a kernel that writes a field differently, a file that is missing or cut short, leaves that
//! one figure out and never panics.

use std::path::{Path, PathBuf};

/// The fields of `/proc/<pid>/stat` the collector reports, each `None` when unreadable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stat {
    /// User plus system CPU time, in clock ticks (fields 14 and 15).
    pub(crate) cpu_ticks: Option<u64>,
    /// Number of threads (field 20).
    pub(crate) threads: Option<u64>,
    /// Start time after boot, in clock ticks (field 22).
    pub(crate) start_ticks: Option<u64>,
    /// Virtual memory size in bytes (field 23).
    pub(crate) virtual_bytes: Option<u64>,
    /// Resident set size in pages (field 24).
    pub(crate) resident_pages: Option<u64>,
}

/// Parses `/proc/<pid>/stat`. The command name (field 2) is in parentheses and may itself hold
/// spaces and `)`, so the fields are counted from the last `)`.
pub(crate) fn parse_stat(text: &str) -> Stat {
    let Some((_, rest)) = text.rsplit_once(')') else {
        return Stat::default();
    };
    // `rest` starts with field 3 (the state).
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    let field = |number: usize| -> Option<u64> { fields.get(number - 3)?.parse().ok() };
    Stat {
        cpu_ticks: field(14).zip(field(15)).and_then(|(u, s)| u.checked_add(s)),
        threads: field(20),
        start_ticks: field(22),
        virtual_bytes: field(23),
        resident_pages: field(24),
    }
}

/// The `btime` line of `/proc/stat`: the boot time, in seconds since the Unix epoch.
pub(crate) fn parse_boot_time(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix("btime "))
        .and_then(|value| value.trim().parse().ok())
}

/// The soft limit of the `Max open files` line of `/proc/<pid>/limits`; `None` for
/// `unlimited`, which has no number to report.
pub(crate) fn parse_max_open_files(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_ascii_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The auxiliary vector's entries the collector needs: the clock tick rate and the page size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Auxv {
    /// `AT_CLKTCK`: the unit of the tick fields of `stat`, per second.
    pub(crate) ticks_per_second: Option<u64>,
    /// `AT_PAGESZ`: the unit of the resident set size, in bytes.
    pub(crate) page_size: Option<u64>,
}

const AT_PAGESZ: u64 = 6;
const AT_CLKTCK: u64 = 17;

/// Parses `/proc/<pid>/auxv`: native-endian (key, value) pairs of machine words, ending with a
/// zero key. Reading the values there needs no call into libc.
pub(crate) fn parse_auxv(bytes: &[u8]) -> Auxv {
    const WORD: usize = size_of::<usize>();
    let word = |chunk: &[u8]| -> u64 {
        let mut buf = [0u8; WORD];
        buf.copy_from_slice(chunk);
        usize::from_ne_bytes(buf) as u64
    };
    let mut auxv = Auxv::default();
    for pair in bytes.chunks_exact(2 * WORD) {
        let (key, value) = (word(&pair[..WORD]), word(&pair[WORD..]));
        let nonzero = (value > 0).then_some(value);
        match key {
            0 => break,
            AT_PAGESZ => auxv.page_size = nonzero,
            AT_CLKTCK => auxv.ticks_per_second = nonzero,
            _ => {}
        }
    }
    auxv
}

/// Where one process's files are: `/proc/self` by default.
#[derive(Clone, Debug)]
pub(crate) struct ProcDir {
    /// The `/proc` mount (holds `stat` with `btime`).
    root: PathBuf,
    /// The process's own directory under it.
    process: PathBuf,
}

impl Default for ProcDir {
    fn default() -> Self {
        ProcDir::new(Path::new("/proc"), "self")
    }
}

impl ProcDir {
    /// The process `pid` (a number, or `self`) under the `/proc` mount `root`.
    pub(crate) fn new(root: &Path, pid: &str) -> Self {
        ProcDir {
            root: root.to_owned(),
            process: root.join(pid),
        }
    }

    pub(crate) fn stat(&self) -> Stat {
        read_text(&self.process.join("stat")).map_or_else(Stat::default, |t| parse_stat(&t))
    }

    pub(crate) fn boot_time(&self) -> Option<u64> {
        parse_boot_time(&read_text(&self.root.join("stat"))?)
    }

    pub(crate) fn max_open_files(&self) -> Option<u64> {
        parse_max_open_files(&read_text(&self.process.join("limits"))?)
    }

    pub(crate) fn auxv(&self) -> Auxv {
        std::fs::read(self.process.join("auxv"))
            .map_or_else(|_| Auxv::default(), |b| parse_auxv(&b))
    }

    /// The number of entries of `fd/`: the process's open descriptors (reading the directory
    /// holds one of them open, which is counted, as other clients count it).
    pub(crate) fn open_fds(&self) -> Option<u64> {
        let entries = std::fs::read_dir(self.process.join("fd")).ok()?;
        let mut count = 0u64;
        for entry in entries {
            entry.ok()?;
            count += 1;
        }
        Some(count)
    }
}

fn read_text(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    // A `stat` line of a process whose command name holds spaces and a `)`.
    const STAT: &str = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 1000 0 0 0 \
                        250 50 0 0 20 0 7 0 123456 104857600 2560 18446744073709551615 \
                        1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        assert_eq!(
            parse_stat(STAT),
            Stat {
                cpu_ticks: Some(300),
                threads: Some(7),
                start_ticks: Some(123456),
                virtual_bytes: Some(104857600),
                resident_pages: Some(2560),
            }
        );
    }

    #[test]
    fn odd_or_missing_stat_fields_leave_only_those_figures_out() {
        assert_eq!(parse_stat(""), Stat::default());
        assert_eq!(parse_stat("no parenthesis at all"), Stat::default());
        // Cut short after field 20: the later figures are missing, the earlier ones read.
        let short = "1 (x) S 1 1 1 0 -1 0 0 0 0 0 10 5 0 0 20 0 3";
        let stat = parse_stat(short);
        assert_eq!(stat.cpu_ticks, Some(15));
        assert_eq!(stat.threads, Some(3));
        assert_eq!(
            (stat.start_ticks, stat.virtual_bytes, stat.resident_pages),
            (None, None, None)
        );
        // A field that is not a number leaves that figure out.
        let odd = STAT
            .replace(" 250 50 ", " 250 -5 ")
            .replace(" 7 0 ", " seven 0 ");
        let stat = parse_stat(&odd);
        assert_eq!((stat.cpu_ticks, stat.threads), (None, None));
        assert_eq!(stat.resident_pages, Some(2560));
        // Sums that overflow are left out, not wrapped.
        let huge = STAT.replace(" 250 50 ", &format!(" {} 1 ", u64::MAX));
        assert_eq!(parse_stat(&huge).cpu_ticks, None);
    }

    #[test]
    fn boot_time_and_open_file_limit() {
        assert_eq!(
            parse_boot_time("cpu  1 2 3\nbtime 1700000000\nprocesses 5\n"),
            Some(1700000000)
        );
        assert_eq!(parse_boot_time("cpu 1\nbtime x\n"), None);
        assert_eq!(parse_boot_time(""), None);
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max cpu time              unlimited            unlimited            seconds   \n\
                      Max open files            1024                 524288               files     \n";
        assert_eq!(parse_max_open_files(limits), Some(1024));
        assert_eq!(
            parse_max_open_files(&limits.replace("1024 ", "unlimited ")),
            None
        );
        assert_eq!(parse_max_open_files("Max cpu time 1 1 seconds\n"), None);
    }

    #[test]
    fn auxv_gives_the_tick_rate_and_page_size_and_stops_at_the_null_entry() {
        let words = |pairs: &[(usize, usize)]| -> Vec<u8> {
            pairs
                .iter()
                .flat_map(|(k, v)| [k.to_ne_bytes(), v.to_ne_bytes()])
                .flatten()
                .collect()
        };
        let auxv = parse_auxv(&words(&[(3, 99), (6, 4096), (17, 100), (0, 0), (17, 5)]));
        assert_eq!(auxv.ticks_per_second, Some(100));
        assert_eq!(auxv.page_size, Some(4096));
        // A truncated vector reads the whole pairs it has; a zero value is no value.
        let mut cut = words(&[(17, 0), (6, 8192)]);
        cut.push(1);
        assert_eq!(
            parse_auxv(&cut),
            Auxv {
                ticks_per_second: None,
                page_size: Some(8192)
            }
        );
        assert_eq!(parse_auxv(&[]), Auxv::default());
    }

    #[test]
    fn a_missing_proc_directory_reads_nothing() {
        let dir = ProcDir::new(Path::new("/nonexistent-proc"), "self");
        assert_eq!(dir.stat(), Stat::default());
        assert_eq!(dir.boot_time(), None);
        assert_eq!(dir.max_open_files(), None);
        assert_eq!(dir.auxv(), Auxv::default());
        assert_eq!(dir.open_fds(), None);
    }
}
