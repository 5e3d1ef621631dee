//! What the graph saved, kept over time on the user's machine (SAVE-4) and
//! reported by `pi-gortex stats` (SAVE-5).
//!
//! One JSON [`StatsRecord`] per line in `<agentDir>/gortex-stats.jsonl`. A
//! writer holds an exclusive lock on a lock file beside it, so any number of
//! Pi processes append whole lines; the file is trimmed (oldest records
//! dropped) by writing a new file and renaming it over the old one, so a
//! reader sees the old file or the new one, never a half. The file is
//! untrusted: it is opened without following a final link and without
//! blocking, must be a regular file, and is read through a byte cap; a line
//! that is not a record is skipped and counted.

use std::cmp::Ordering;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use foldhash::quality::RandomState;

use pi_gortex_schema::stats::{
    StatsByKind, StatsDay, StatsProject, StatsRecord, StatsReport, StatsTotal,
};

use crate::platform::no_follow::open_no_follow;
use crate::savings::Savings;

mod line;

use line::Line;

/// The file's name under Pi's global agent dir.
pub const FILE_NAME: &str = "gortex-stats.jsonl";
/// Past this size a write first trims the file to half of it, newest records kept.
pub const TRIM_BYTES: u64 = 32 * 1024 * 1024;
/// A read takes at most this many bytes of the file.
pub const MAX_READ_BYTES: u64 = 2 * TRIM_BYTES;

/// The stats file under `agent_dir` (CFG-3's, never a project's).
pub fn file_path(agent_dir: &Path) -> PathBuf {
    agent_dir.join(FILE_NAME)
}

/// The user's warning that this session's record could not be written
/// (`error` names the file and why); the session itself goes on.
pub fn failure_notice(error: &str) -> String {
    format!(
        "pi-gortex could not record what the graph saved ({}); counting goes on, `/gortex` shows this session's figures.",
        crate::terminal_text::shown(error)
    )
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A session's record. Counts are clamped into the schema's range.
pub fn record(id: &str, project: &str, started_ms: i64, savings: &Savings) -> StatsRecord {
    let n = |v: u64| v.min(i64::MAX as u64 / 2) as i64;
    let [read, grep, find, ls, bash] = savings.redirected.map(n);
    StatsRecord {
        v: std::num::NonZeroU32::MIN,
        id: id.to_string(),
        project: project.to_string(),
        started_ms,
        ended_ms: now_ms(),
        redirected: StatsByKind {
            read,
            grep,
            find,
            ls,
            bash,
        },
        kept_out_bytes: n(savings.kept_out_bytes),
        kept_out_tokens: n(savings.kept_out_tokens()),
        not_sized: n(savings.not_sized),
        graph_answers: n(savings.graph_answers),
        graph_chars: n(savings.graph_chars),
        graph_tokens: n(savings.graph_tokens()),
        allowed: n(savings.allowed),
        allowed_bytes: n(savings.allowed_bytes),
        net_tokens: n(savings.kept_out_tokens()) - n(savings.graph_tokens()),
    }
}

/// The records of a file, the last one per id kept, in file order, with the
/// number of lines skipped as corrupt or foreign.
#[derive(Debug, Default)]
pub struct Records {
    pub records: Vec<StatsRecord>,
    pub skipped: u64,
}

/// A file's records, a share of its lines per thread, shares in file order,
/// with the number of lines skipped as corrupt or foreign.
struct Decoded<'a> {
    shares: Vec<Vec<Line<'a>>>,
    skipped: u64,
}

impl<'a> Decoded<'a> {
    /// The last record per id, in the order the ids first appear.
    fn last_per_id(&self) -> Vec<&Line<'a>> {
        let count = self.shares.iter().map(Vec::len).sum();
        let mut kept: Vec<&Line> = Vec::with_capacity(count);
        let mut at: HashMap<&str, usize, RandomState> =
            HashMap::with_capacity_and_hasher(count, RandomState::default());
        for line in self.shares.iter().flatten() {
            match at.entry(&line.id) {
                Entry::Occupied(seen) => kept[*seen.get()] = line,
                Entry::Vacant(new) => {
                    new.insert(kept.len());
                    kept.push(line);
                }
            }
        }
        kept
    }
}

/// Parses the lines of `bytes` (see [`decode`]) into owned records.
pub fn parse(bytes: &[u8]) -> Records {
    let decoded = decode(bytes);
    let records = decoded.last_per_id();
    Records {
        records: records.into_iter().map(Line::to_record).collect(),
        skipped: decoded.skipped,
    }
}

/// Decodes the lines of `bytes`, a share of them per core (the JSON decoding
/// is the report's cost).
fn decode(bytes: &[u8]) -> Decoded<'_> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(8);
    let mut chunks = Vec::with_capacity(threads);
    let mut rest = bytes;
    for left in (1..=threads).rev() {
        // Each share ends at the first newline past its even part; the last one
        // (left = 1) finds none past the end and takes the rest.
        let from = rest.len() / left;
        let cut = memchr::memchr(b'\n', &rest[from..]).map_or(rest.len(), |at| from + at + 1);
        let (chunk, tail) = rest.split_at(cut);
        chunks.push(chunk);
        rest = tail;
    }
    let parsed: Vec<(Vec<Line>, u64)> = std::thread::scope(|scope| {
        let workers: Vec<_> = chunks
            .into_iter()
            .map(|chunk| scope.spawn(move || decode_lines(chunk)))
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or_default())
            .collect()
    });
    let skipped = parsed.iter().map(|&(_, skipped)| skipped).sum();
    Decoded {
        shares: parsed.into_iter().map(|(lines, _)| lines).collect(),
        skipped,
    }
}

/// The records of the non-blank lines of `bytes`, and how many were none.
fn decode_lines(bytes: &[u8]) -> (Vec<Line<'_>>, u64) {
    // A record line of the writer's is some 300 bytes; the guess saves the regrowth.
    let mut lines = Vec::with_capacity(bytes.len() / 256);
    let mut skipped = 0;
    let mut rest = bytes;
    while !rest.is_empty() {
        let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        let line = &rest[..end];
        rest = rest.get(end + 1..).unwrap_or_default();
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match line::decode(line) {
            Some(record) => lines.push(record),
            None => skipped += 1,
        }
    }
    (lines, skipped)
}

/// Opens the file for reading the untrusted way: no final link, no blocking,
/// a regular file only.
fn open_regular(path: &Path) -> io::Result<File> {
    let file = open_no_follow(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let kind = crate::platform::no_follow::kind_of(&meta);
        return Err(io::Error::other(format!("{} is {kind}", path.display())));
    }
    Ok(file)
}

/// Reads at most `cap` bytes of an opened file.
fn read_capped(file: &File, cap: u64) -> io::Result<Vec<u8>> {
    // Sized once from the file's length: regrowing tens of MiB copies them again.
    let size = file.metadata().map_or(0, |meta| meta.len().min(cap));
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(cap).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The file's bytes, up to the cap; a missing file has none.
fn read_bytes(path: &Path) -> io::Result<Vec<u8>> {
    match open_regular(path) {
        Ok(file) => read_capped(&file, MAX_READ_BYTES),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// Reads the file; a missing file has no records.
pub fn read(path: &Path) -> io::Result<Records> {
    Ok(parse(&read_bytes(path)?))
}

/// Reads the file and reports on it (see [`report`]), each line decoded once
/// and nothing copied out of it but what the report shows.
pub fn read_report(path: &Path, days: u32, now_ms: i64) -> io::Result<StatsReport> {
    let bytes = read_bytes(path)?;
    let decoded = decode(&bytes);
    let records = decoded.last_per_id();
    Ok(report_of(path, &records, decoded.skipped, days, now_ms))
}

/// Appends `record` (see [`append_bounded`]) with the default bound.
pub fn append(path: &Path, record: &StatsRecord) -> io::Result<()> {
    append_bounded(path, record, TRIM_BYTES)
}

/// Appends `record` as one line under the lock; past `trim_bytes` the file is
/// first rewritten with its newest records within half of that, atomically.
pub fn append_bounded(path: &Path, record: &StatsRecord, trim_bytes: u64) -> io::Result<()> {
    let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
    line.push(b'\n');
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let lock = open_lock(&path.with_extension("jsonl.lock"))?;
    fs4::FileExt::lock(&lock)?;
    let result = append_locked(path, &line, trim_bytes);
    let _ = fs4::FileExt::unlock(&lock);
    result
}

fn open_lock(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    private_no_follow(&mut options);
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other(format!(
            "{} is not a file",
            path.display()
        )));
    }
    Ok(file)
}

#[cfg(unix)]
fn private_no_follow(options: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    options
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
}

#[cfg(not(unix))]
fn private_no_follow(_options: &mut OpenOptions) {}

fn append_locked(path: &Path, line: &[u8], trim_bytes: u64) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    private_no_follow(&mut options);
    let mut file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let kind = crate::platform::no_follow::kind_of(&meta);
        return Err(io::Error::other(format!("{} is {kind}", path.display())));
    }
    if meta.len() + line.len() as u64 > trim_bytes {
        drop(file);
        return rewrite_newest(path, line, trim_bytes / 2);
    }
    file.write_all(line)
}

/// Writes the newest records that fit in `keep` bytes, then `line`, to a new
/// file beside `path` and renames it over `path`.
fn rewrite_newest(path: &Path, line: &[u8], keep: u64) -> io::Result<()> {
    let old = read(path)?;
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut size = line.len() as u64;
    for record in old.records.iter().rev() {
        let mut text = serde_json::to_vec(record).map_err(io::Error::other)?;
        text.push(b'\n');
        if size + text.len() as u64 > keep {
            break;
        }
        size += text.len() as u64;
        lines.push(text);
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    let mut bytes = Vec::with_capacity(size as usize);
    for text in lines.iter().rev() {
        bytes.extend_from_slice(text);
    }
    bytes.extend_from_slice(line);
    temp.write_all(&bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `YYYY-MM-DD` (UTC) of a time in milliseconds since the epoch.
pub fn day_of(ms: i64) -> String {
    // Howard Hinnant's days-to-civil.
    let z = ms.div_euclid(86_400_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn add(total: &mut StatsTotal, r: &Line) {
    let k = &r.redirected;
    total.sessions += 1;
    total.redirected += k.read + k.grep + k.find + k.ls + k.bash;
    total.kept_out_tokens += r.kept_out_tokens;
    total.graph_tokens += r.graph_tokens;
    total.net_tokens += r.net_tokens;
}

fn empty_total() -> StatsTotal {
    StatsTotal {
        sessions: 0,
        redirected: 0,
        kept_out_tokens: 0,
        graph_tokens: 0,
        net_tokens: 0,
    }
}

/// How many of the largest savings a report names.
const TOP_SESSIONS: usize = 5;

const DAY_MS: i64 = 86_400_000;

/// The order of the largest savings: net tokens, then the latest end, first.
fn ranked(a: &Line, b: &Line) -> Ordering {
    b.net_tokens
        .cmp(&a.net_tokens)
        .then(b.ended_ms.cmp(&a.ended_ms))
}

/// The report over the records that ended in the last `days` days before `now_ms`.
pub fn report(file: &Path, records: Records, days: u32, now_ms: i64) -> StatsReport {
    let lines: Vec<Line> = records.records.iter().map(Line::from).collect();
    let lines: Vec<&Line> = lines.iter().collect();
    report_of(file, &lines, records.skipped, days, now_ms)
}

fn report_of(file: &Path, records: &[&Line], skipped: u64, days: u32, now_ms: i64) -> StatsReport {
    let since = now_ms - i64::from(days.max(1)) * DAY_MS;
    let mut total = empty_total();
    let mut projects: HashMap<&str, StatsTotal, RandomState> = HashMap::default();
    let mut per_day: HashMap<i64, StatsTotal> = HashMap::new();
    let mut top: Vec<&Line> = Vec::with_capacity(TOP_SESSIONS + 1);
    for &r in records {
        if r.ended_ms <= since || r.ended_ms > now_ms + DAY_MS {
            continue;
        }
        add(&mut total, r);
        add(projects.entry(&r.project).or_insert_with(empty_total), r);
        add(
            per_day
                .entry(r.ended_ms.div_euclid(DAY_MS))
                .or_insert_with(empty_total),
            r,
        );
        // After every session already kept that ranks the same, as a stable sort puts it.
        let at = top.partition_point(|kept| ranked(kept, r) != Ordering::Greater);
        if at < TOP_SESSIONS {
            top.insert(at, r);
            top.truncate(TOP_SESSIONS);
        }
    }
    let mut projects: Vec<StatsProject> = projects
        .into_iter()
        .map(|(project, total)| StatsProject {
            project: project.to_string(),
            total,
        })
        .collect();
    projects.sort_by(|a, b| {
        (b.total.net_tokens.cmp(&a.total.net_tokens)).then(a.project.cmp(&b.project))
    });
    let mut per_day: Vec<StatsDay> = per_day
        .into_iter()
        .map(|(day, total)| StatsDay {
            day: day_of(day * DAY_MS),
            total,
        })
        .collect();
    per_day.sort_by(|a, b| a.day.cmp(&b.day));
    StatsReport {
        file: file.display().to_string(),
        days: std::num::NonZeroU32::new(days.max(1)).unwrap_or(std::num::NonZeroU32::MIN),
        skipped: skipped as i64,
        total,
        projects,
        per_day,
        top_sessions: top.into_iter().map(Line::to_record).collect(),
    }
}

/// `12,345`, with a sign for a negative number.
fn grouped(n: i64) -> String {
    let sign = if n < 0 { "−" } else { "" };
    format!("{sign}{}", thousands(n.unsigned_abs()))
}

/// `40000` as `40,000`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && matches!((digits.len() - i) % 3, 0) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The report as text: totals, per project, the top sessions, and a bar per
/// day (`█` on a terminal, `#` otherwise).
pub fn render(report: &StatsReport, tty: bool) -> String {
    let mut out = String::new();
    let t = &report.total;
    let _ = writeln!(
        out,
        "What the graph saved, last {} days ({})",
        report.days,
        crate::terminal_text::shown(&report.file)
    );
    let _ = writeln!(
        out,
        "  {} sessions, {} reads redirected, {} tokens kept out, {} tokens of graph answers, net {} tokens",
        grouped(t.sessions),
        grouped(t.redirected),
        grouped(t.kept_out_tokens),
        grouped(t.graph_tokens),
        grouped(t.net_tokens)
    );
    if report.skipped > 0 {
        let _ = writeln!(
            out,
            "  {} lines skipped (corrupt or foreign)",
            report.skipped
        );
    }
    if report.projects.is_empty() {
        let _ = writeln!(out, "  no sessions recorded in this window");
        return out;
    }
    let _ = writeln!(out, "\nPer project (net tokens)");
    for p in &report.projects {
        let _ = writeln!(
            out,
            "  {:>12}  {} ({} sessions)",
            grouped(p.total.net_tokens),
            crate::terminal_text::shown(&p.project),
            p.total.sessions
        );
    }
    let _ = writeln!(out, "\nLargest savings");
    for r in &report.top_sessions {
        let _ = writeln!(
            out,
            "  {:>12}  {}  {}",
            grouped(r.net_tokens),
            day_of(r.ended_ms),
            crate::terminal_text::shown(&r.project)
        );
    }
    let _ = writeln!(out, "\nNet tokens per day");
    let widest = report
        .per_day
        .iter()
        .map(|d| d.total.net_tokens.unsigned_abs())
        .max()
        .unwrap_or(0)
        .max(1);
    let (full, minus) = if tty { ('█', '░') } else { ('#', '-') };
    for d in &report.per_day {
        let net = d.total.net_tokens;
        let width = (net.unsigned_abs() * 40).div_ceil(widest) as usize;
        let bar: String = std::iter::repeat_n(if net < 0 { minus } else { full }, width).collect();
        let _ = writeln!(out, "  {}  {:<40}  {}", d.day, bar, grouped(net));
    }
    out
}
