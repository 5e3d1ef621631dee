//! The stats file (SAVE-4) and `pi-gortex stats` (SAVE-5): concurrent writers
//! from separate processes, a corrupt or foreign file, a hostile file type,
//! the size bound, and the report's text and JSON.

use std::path::{Path, PathBuf};
use std::process::Command;

use pi_gortex_runtime::savings::{ReadKind, Savings};
use pi_gortex_runtime::stats;
use pi_gortex_schema::stats::StatsRecord;

/// The bound the concurrent writers share: small, so they trim often while others append.
const BOUND: u64 = 8 * 1024;

/// The env var that turns this test binary into one concurrent writer.
const CHILD: &str = "PI_GORTEX_STATS_WRITER";

/// The project a sample record names: this crate's folder, a real project path on any machine.
const PROJECT: &str = env!("CARGO_MANIFEST_DIR");

fn sample(id: &str, project: &str, kept: u64, graph: &str) -> StatsRecord {
    let mut savings = Savings::default();
    savings.record_blocked(ReadKind::Read, Some(kept));
    savings.record_graph_answer(graph);
    stats::record(id, project, stats::now_ms() - 1_000, &savings)
}

fn pi_gortex(agent_dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pi-gortex"))
        .args(args)
        .env("PI_CODING_AGENT_DIR", agent_dir)
        .output()
        .expect("pi-gortex runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// One child process's part: waits for the shared start, then appends its
/// records as a session end does.
#[test]
fn concurrent_writer_child() {
    let Ok(path) = std::env::var(CHILD) else {
        return;
    };
    let path = PathBuf::from(path);
    let start: i64 = std::env::var("PI_GORTEX_STATS_START")
        .unwrap()
        .parse()
        .unwrap();
    while stats::now_ms() < start {
        std::thread::yield_now();
    }
    let me = std::process::id();
    for i in 0..50 {
        let record = sample(&format!("{me}-{i}"), PROJECT, 40_000, &"x".repeat(400));
        stats::append_bounded(&path, &record, BOUND).expect("append");
    }
}

// SAVE-4: eight processes ending sessions at once append whole records, none lost
// before the bound and none torn, also while the bound trims the file.
#[test]
fn save_4_eight_processes_append_intact_records_at_once() {
    if std::env::var(CHILD).is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = stats::file_path(dir.path());
    let start = stats::now_ms() + 1_500;
    let children: Vec<std::process::Child> = (0..8)
        .map(|_| {
            Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "concurrent_writer_child", "--test-threads=1"])
                .env(CHILD, &path)
                .env("PI_GORTEX_STATS_START", start.to_string())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let pids: Vec<u32> = children.iter().map(|child| child.id()).collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.ends_with('\n'));
    let read = stats::read(&path).unwrap();
    assert_eq!(read.skipped, 0, "a torn or interleaved line");
    assert!(text.len() as u64 <= BOUND, "bounded: {}", text.len());
    // The file is always a suffix of the appends in their locked order, so each
    // writer's records in it run unbroken to its last; a record appended to a
    // file a trim was replacing leaves a gap or a missing last one.
    for pid in pids {
        let mine: Vec<u32> = read
            .records
            .iter()
            .filter_map(|r| r.id.strip_prefix(&format!("{pid}-"))?.parse().ok())
            .collect();
        if let Some(first) = mine.first() {
            let unbroken: Vec<u32> = (*first..50).collect();
            assert_eq!(mine, unbroken, "writer {pid}");
        }
    }
}

// SAVE-4: without the bound in play, every one of the eight records is there.
#[test]
fn save_4_eight_session_ends_at_once_leave_eight_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = stats::file_path(dir.path());
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let path = path.clone();
            std::thread::spawn(move || {
                let record = sample(&format!("s{i}"), PROJECT, 40_000, "answer");
                stats::append(&path, &record).unwrap();
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let read = stats::read(&path).unwrap();
    assert_eq!((read.records.len(), read.skipped), (8, 0));
}

// SAVE-4: a later record of the same session replaces the earlier one.
#[test]
fn save_4_the_last_record_of_a_session_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = stats::file_path(dir.path());
    stats::append(&path, &sample("a", "/p", 4_000, "")).unwrap();
    stats::append(&path, &sample("a", "/p", 40_000, "")).unwrap();
    let read = stats::read(&path).unwrap();
    assert_eq!(read.records.len(), 1);
    assert_eq!(read.records[0].kept_out_bytes, 40_000);
}

// SAVE-5: corrupt, foreign and torn lines are skipped with a count, never a crash.
#[test]
fn save_5_a_malformed_file_is_skipped_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = stats::file_path(dir.path());
    let good = serde_json::to_string(&sample("good", PROJECT, 40_000, "abcd")).unwrap();
    let mut foreign: serde_json::Value = serde_json::from_str(&good).unwrap();
    foreign["extra"] = 1.into();
    let mut negative: serde_json::Value = serde_json::from_str(&good).unwrap();
    negative["id"] = "neg".into();
    negative["kept_out_bytes"] = (-5).into();
    let mut future: serde_json::Value = serde_json::from_str(&good).unwrap();
    future["v"] = 2.into();
    let lines = [
        good.clone(),
        "not json".into(),
        "{\"v\":1}".into(),
        "[1,2,3]".into(),
        foreign.to_string(),
        negative.to_string(),
        future.to_string(),
        "\u{0}\u{1}\u{ff}".into(),
        good[..good.len() / 2].to_string(),
    ];
    std::fs::write(&path, lines.join("\n")).unwrap();
    let read = stats::read(&path).unwrap();
    assert_eq!((read.records.len(), read.skipped), (1, 8));
    let (code, stdout, stderr) = pi_gortex(dir.path(), &["stats"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("8 lines skipped (corrupt or foreign)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 sessions, 1 reads redirected, 10,000 tokens kept out"),
        "{stdout}"
    );
    std::fs::write(&path, vec![0xffu8; 100_000]).unwrap();
    let (code, stdout, _) = pi_gortex(dir.path(), &["stats", "--json"]);
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["skipped"], 1);
}

// SAVE-4/SAVE-5: a FIFO or a symlink in the file's place is refused without
// hanging, for the reader and the writer alike.
#[cfg(unix)]
#[test]
fn save_4_a_fifo_or_a_symlink_is_refused_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let path = stats::file_path(dir.path());
    assert!(Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap()
        .success());
    assert!(stats::read(&path).is_err());
    assert!(stats::append(&path, &sample("a", "/p", 1, "")).is_err());
    let (code, _, stderr) = pi_gortex(dir.path(), &["stats"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("a FIFO"), "{stderr}");
    std::fs::remove_file(&path).unwrap();
    let target = dir.path().join("elsewhere");
    std::fs::write(&target, "").unwrap();
    std::os::unix::fs::symlink(&target, &path).unwrap();
    assert!(stats::read(&path).is_err());
    assert!(stats::append(&path, &sample("a", "/p", 1, "")).is_err());
    assert_eq!(std::fs::read(&target).unwrap(), b"");
}

// SAVE-4: past the bound the oldest records are dropped; the file stays whole.
#[test]
fn save_4_the_file_is_bounded_and_keeps_the_newest() {
    let dir = tempfile::tempdir().unwrap();
    let path = stats::file_path(dir.path());
    for i in 0..100 {
        stats::append_bounded(&path, &sample(&format!("s{i}"), "/p", i, ""), 8 * 1024).unwrap();
    }
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size <= 8 * 1024, "{size}");
    let read = stats::read(&path).unwrap();
    assert_eq!(read.skipped, 0);
    assert_eq!(read.records.last().unwrap().id, "s99");
    assert!(read.records.first().unwrap().id != "s0");
}

// SAVE-5: totals per project and per day, the top sessions, a chart, and JSON
// that validates against the schema.
#[test]
fn save_5_the_report_has_totals_a_chart_and_schema_valid_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = stats::file_path(dir.path());
    let (project_a, project_b) = (format!("{PROJECT}/a"), format!("{PROJECT}/b"));
    let mut old = sample("old", &project_a, 400_000, "");
    old.ended_ms -= 40 * 86_400_000;
    stats::append(&path, &old).unwrap();
    stats::append(&path, &sample("s1", &project_a, 40_000, &"y".repeat(400))).unwrap();
    stats::append(&path, &sample("s2", &project_b, 4_000, "")).unwrap();
    let (code, stdout, stderr) = pi_gortex(dir.path(), &["stats"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("What the graph saved, last 30 days"),
        "{stdout}"
    );
    assert!(stdout.contains("2 sessions, 2 reads redirected, 11,000 tokens kept out, 100 tokens of graph answers, net 10,900 tokens"), "{stdout}");
    assert!(
        stdout.contains(&format!("        9,900  {project_a} (1 sessions)")),
        "{stdout}"
    );
    assert!(stdout.contains("Net tokens per day"), "{stdout}");
    let bar = format!("{}  10,900", "#".repeat(40));
    assert!(stdout.contains(&bar), "not a TTY: a plain bar\n{stdout}");
    let (code, stdout, _) = pi_gortex(dir.path(), &["stats", "--json", "--days", "90"]);
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    pi_gortex_schema::validate("StatsReport", &report).expect("valid StatsReport");
    assert_eq!(report["total"]["sessions"], 3);
    assert_eq!(report["top_sessions"][0]["id"], "old");
    let (code, _, stderr) = pi_gortex(dir.path(), &["stats", "--days", "0"]);
    assert_eq!(code, 2, "{stderr}");
}

/// A record of `net` tokens (kept out, no graph answer) that ended at `ended_ms`.
fn ended(id: &str, project: &str, net: u64, ended_ms: i64) -> StatsRecord {
    let mut record = sample(id, project, net * 4, "");
    record.ended_ms = ended_ms;
    record
}

fn records(list: Vec<StatsRecord>, skipped: u64) -> stats::Records {
    stats::Records {
        records: list,
        skipped,
    }
}

/// A fixed now: 2027-01-15 08:00 UTC.
const NOW: i64 = 1_799_999_200_000;
const DAY: i64 = 86_400_000;

// SAVE-5: the file's lines are decoded a share per thread and merged in file order.
#[test]
fn save_5_records_split_across_the_parsing_threads_keep_file_order_and_the_last_per_id() {
    let mut text = String::new();
    for i in 0..1_000u64 {
        let mut savings = Savings::default();
        savings.record_blocked(ReadKind::Read, Some(i));
        let line =
            serde_json::to_string(&stats::record(&format!("s{}", i % 10), "/p", 0, &savings));
        text.push_str(&line.unwrap());
        text.push_str(if i % 100 == 0 {
            "\nnot a record\n"
        } else {
            "\n"
        });
    }
    let read = stats::parse(text.as_bytes());
    assert_eq!(read.skipped, 10);
    let ids: Vec<&str> = read.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, (0..10).map(|i| format!("s{i}")).collect::<Vec<_>>());
    let kept: Vec<i64> = read.records.iter().map(|r| r.kept_out_bytes).collect();
    assert_eq!(
        kept,
        (990..1_000).collect::<Vec<_>>(),
        "the last record of each id"
    );
    assert_eq!(stats::parse(b"").records.len(), 0);
    assert_eq!(
        stats::parse(b" \n\t\n").skipped,
        0,
        "blank lines are no records and no skips"
    );
}

// SAVE-5: a day is the UTC calendar day of a record's end, checked day by day over four centuries.
#[test]
fn save_5_days_are_utc_calendar_days() {
    assert_eq!(stats::day_of(0), "1970-01-01");
    assert_eq!(stats::day_of(-1), "1969-12-31");
    assert_eq!(stats::day_of(951_782_400_000), "2000-02-29");
    assert_eq!(stats::day_of(1_796_601_599_999), "2026-12-06");
    let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let month_days = |y: i64, m: i64| match m {
        2 if leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    let (mut y, mut m, mut d) = (1800i64, 1i64, 1i64);
    // 1800-01-01 is 62,091 days before the epoch.
    for day in -62_091i64..=(2_200 - 1_970) * 366 {
        let expected = format!("{y:04}-{m:02}-{d:02}");
        assert_eq!(stats::day_of(day * DAY + 43_200_000), expected, "day {day}");
        d += 1;
        if d > month_days(y, m) {
            (d, m) = (1, m + 1);
        }
        if m > 12 {
            (m, y) = (1, y + 1);
        }
    }
}

// SAVE-4: a session's record carries each count under its own name; counts past the schema's
// range are clamped, never wrapped negative.
#[test]
fn save_4_a_record_names_each_count_and_clamps_what_overflows() {
    let mut savings = Savings::default();
    for (n, kind) in ReadKind::ALL.into_iter().enumerate() {
        for _ in 0..=n {
            savings.record_blocked(kind, Some(4));
        }
    }
    savings.record_blocked(ReadKind::Grep, None);
    savings.record_allowed(Some(70));
    savings.record_graph_answer("abcdefgh");
    let before = stats::now_ms();
    let r = stats::record("id-1", "/proj", 123, &savings);
    let after = stats::now_ms();
    assert_eq!(
        (r.v.get(), r.id.as_str(), r.project.as_str()),
        (1, "id-1", "/proj")
    );
    assert_eq!(r.started_ms, 123);
    assert!(before <= r.ended_ms && r.ended_ms <= after && before > 1_700_000_000_000);
    let k = &r.redirected;
    assert_eq!((k.read, k.grep, k.find, k.ls, k.bash), (1, 3, 3, 4, 5));
    assert_eq!(
        (r.kept_out_bytes, r.kept_out_tokens, r.not_sized),
        (60, 15, 1)
    );
    assert_eq!((r.graph_answers, r.graph_chars, r.graph_tokens), (1, 8, 2));
    assert_eq!((r.allowed, r.allowed_bytes, r.net_tokens), (1, 70, 13));
    let mut huge = Savings::default();
    huge.record_blocked(ReadKind::Read, Some(u64::MAX));
    huge.record_graph_answer("abcdefgh");
    let r = stats::record("id-2", "/proj", 0, &huge);
    let cap = i64::MAX / 2;
    assert_eq!((r.kept_out_bytes, r.kept_out_tokens), (cap, cap));
    assert_eq!(r.net_tokens, cap - 2);
    let read = stats::parse(format!("{}\n", serde_json::to_string(&r).unwrap()).as_bytes());
    assert_eq!(
        (read.records.len(), read.skipped),
        (1, 0),
        "a clamped record reads back"
    );
}

// SAVE-4: a missing file has no records; the file and its lock are the user's alone.
#[cfg(unix)]
#[test]
fn save_4_a_missing_file_reads_empty_and_a_written_one_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = stats::file_path(dir.path());
    assert_eq!(path, dir.path().join("gortex-stats.jsonl"));
    let read = stats::read(&path).unwrap();
    assert_eq!((read.records.len(), read.skipped), (0, 0));
    stats::append(&path, &sample("a", "/p", 4, "")).unwrap();
    for file in [path.clone(), dir.path().join("gortex-stats.jsonl.lock")] {
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", file.display());
    }
    let nested = dir.path().join("new/agent/gortex-stats.jsonl");
    stats::append(&nested, &sample("b", "/p", 4, "")).unwrap();
    assert_eq!(
        stats::read(&nested).unwrap().records.len(),
        1,
        "the agent dir is made"
    );
}

// SAVE-4: the file is trimmed only past its bound, to the newest records that fit in half of it.
#[test]
fn save_4_the_bound_trims_past_its_exact_edge_to_the_newest_half() {
    let dir = tempfile::tempdir().unwrap();
    let path = stats::file_path(dir.path());
    let line = |i: usize| {
        let mut r = sample(&format!("s{i:02}"), "/p", 4, "");
        (r.started_ms, r.ended_ms) = (NOW, NOW);
        r
    };
    let width = serde_json::to_vec(&line(0)).unwrap().len() as u64 + 1;
    // A bound of exactly ten lines: ten fit, the eleventh trims to the newest five (four old
    // ones and itself, exactly half the bound).
    let bound = 10 * width;
    for i in 0..10 {
        stats::append_bounded(&path, &line(i), bound).unwrap();
    }
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        bound,
        "no trim at the edge"
    );
    stats::append_bounded(&path, &line(10), bound).unwrap();
    let ids: Vec<String> = stats::read(&path)
        .unwrap()
        .records
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, ["s06", "s07", "s08", "s09", "s10"]);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), bound / 2);
}

// SAVE-5: the window holds the records that ended after its start and not past a day ahead;
// a window of 0 days is one day.
#[test]
fn save_5_the_report_window_has_exact_edges() {
    let file = Path::new("/agent/gortex-stats.jsonl");
    let since = NOW - DAY;
    let list = vec![
        ended("at-start", "/p", 1, since),
        ended("after-start", "/p", 10, since + 1),
        ended("a-day-ahead", "/p", 100, NOW + DAY),
        ended("past-a-day-ahead", "/p", 1_000, NOW + DAY + 1),
    ];
    for days in [0, 1] {
        let report = stats::report(file, records(list.clone(), 0), days, NOW);
        assert_eq!(report.days.get(), 1);
        assert_eq!(
            (report.total.sessions, report.total.net_tokens),
            (2, 110),
            "days {days}"
        );
    }
    let report = stats::report(file, records(list, 3), 2, NOW);
    assert_eq!((report.total.sessions, report.total.net_tokens), (3, 111));
    assert_eq!((report.days.get(), report.skipped), (2, 3));
    assert_eq!(report.file, "/agent/gortex-stats.jsonl");
}

// SAVE-5: totals add every kind; projects rank by net (then name), days run in order, and the
// five largest sessions rank by net, the later first on a tie.
#[test]
fn save_5_the_report_ranks_projects_and_sessions_and_orders_days() {
    let mut savings = Savings::default();
    savings.record_blocked(ReadKind::Find, Some(400));
    savings.record_blocked(ReadKind::Ls, None);
    savings.record_blocked(ReadKind::Grep, None);
    savings.record_blocked(ReadKind::Bash, None);
    savings.record_graph_answer(&"g".repeat(40));
    let mut mixed = stats::record("mixed", "/b", 0, &savings);
    mixed.ended_ms = NOW - 2 * DAY;
    let list = vec![
        mixed,
        ended("five", "/a", 5, NOW - 3 * DAY),
        ended("hundred-early", "/a", 100, NOW - 3 * DAY),
        ended("hundred-late", "/c", 100, NOW - 1),
        ended("seven", "/d", 7, NOW - 1),
        ended("one", "/d", 1, NOW - 1),
        ended("fifty", "/e", 50, NOW - DAY),
    ];
    let report = stats::report(Path::new("f"), records(list, 0), 30, NOW);
    let t = &report.total;
    assert_eq!((t.sessions, t.redirected), (7, 10), "every kind counts");
    assert_eq!(
        (t.kept_out_tokens, t.graph_tokens, t.net_tokens),
        (363, 10, 353)
    );
    let top: Vec<&str> = report.top_sessions.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        top,
        ["hundred-late", "hundred-early", "mixed", "fifty", "seven"]
    );
    let projects: Vec<(&str, i64)> = report
        .projects
        .iter()
        .map(|p| (p.project.as_str(), p.total.net_tokens))
        .collect();
    assert_eq!(
        projects,
        [("/a", 105), ("/c", 100), ("/b", 90), ("/e", 50), ("/d", 8)]
    );
    assert_eq!(report.projects[4].total.sessions, 2);
    let days: Vec<(String, i64)> = report
        .per_day
        .iter()
        .map(|d| (d.day.clone(), d.total.net_tokens))
        .collect();
    let day = |offset: i64| stats::day_of(NOW - offset * DAY);
    assert_eq!(
        days,
        [
            (day(3), 105),
            (day(2), 90),
            (day(1), 50),
            (stats::day_of(NOW - 1), 108)
        ]
    );
    let tie = |net| {
        stats::report(
            Path::new("f"),
            records(
                vec![
                    ended("x", "/same", net, NOW - 1),
                    ended("y", "/other", net, NOW - 1),
                ],
                0,
            ),
            30,
            NOW,
        )
    };
    let names: Vec<String> = tie(9).projects.into_iter().map(|p| p.project).collect();
    assert_eq!(names, ["/other", "/same"], "a tie goes by name");
}

// SAVE-5: sessions that tie on net and end rank in file order, and a larger one read later
// still takes the lead.
#[test]
fn save_5_the_largest_sessions_tied_in_full_keep_file_order() {
    let mut list: Vec<StatsRecord> = ["a", "b", "c", "d", "e", "f", "g"]
        .into_iter()
        .map(|id| ended(id, "/p", 10, NOW - 1))
        .collect();
    list.push(ended("larger", "/p", 11, NOW - 1));
    let report = stats::report(Path::new("f"), records(list, 0), 30, NOW);
    let top: Vec<&str> = report.top_sessions.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(top, ["larger", "a", "b", "c", "d"]);
}

// SAVE-5: the chart's bars are proportional to the widest day (rounded up), `█`/`░` on a terminal
// and `#`/`-` otherwise, a negative day drawn with the second; skipped lines and an empty window
// are said.
#[test]
fn save_5_the_chart_scales_its_bars_and_draws_a_loss_apart() {
    let mut loss = sample("loss", "/p", 0, &"l".repeat(4_000));
    loss.ended_ms = NOW - 2 * DAY;
    let list = vec![
        ended("big", "/p", 3, NOW - 1),
        ended("small", "/p", 1, NOW - DAY),
        ended("zero", "/q", 0, NOW - 3 * DAY),
        loss,
    ];
    let report = stats::report(Path::new("/a/f.jsonl"), records(list, 2), 7, NOW);
    let plain = stats::render(&report, false);
    let lines: Vec<&str> = plain.lines().collect();
    assert_eq!(lines[0], "What the graph saved, last 7 days (/a/f.jsonl)");
    assert_eq!(
        lines[1],
        "  4 sessions, 4 reads redirected, 4 tokens kept out, 1,000 tokens of graph answers, net −996 tokens"
    );
    assert_eq!(lines[2], "  2 lines skipped (corrupt or foreign)");
    let bar = |day: i64, glyph: &str, n: usize, net: &str| {
        format!(
            "  {}  {:<40}  {net}",
            stats::day_of(NOW - day * DAY),
            glyph.repeat(n)
        )
    };
    // The widest day is the loss, 1,000 tokens: 3 → ⌈120/1000⌉ = 1, 1 → 1, 0 → none.
    assert!(plain.contains(&bar(2, "-", 40, "−1,000")), "{plain}");
    assert!(plain.contains(&bar(3, "#", 0, "0")), "{plain}");
    assert!(plain.contains(&bar(1, "#", 1, "1")), "{plain}");
    let projects = format!(
        "\nPer project (net tokens)\n  {:>12}  /q (1 sessions)\n  {:>12}  /p (3 sessions)\n",
        "0", "−996"
    );
    assert!(plain.contains(&projects), "{plain}");
    let largest = format!(
        "\nLargest savings\n  {:>12}  {}  /p\n",
        "3",
        stats::day_of(NOW - 1)
    );
    assert!(plain.contains(&largest), "{plain}");
    let tty = stats::render(&report, true);
    assert!(tty.contains(&bar(2, "░", 40, "−1,000")), "{tty}");
    assert!(tty.contains(&bar(1, "█", 1, "1")), "{tty}");
    let thirds = stats::report(
        Path::new("f"),
        records(
            vec![ended("a", "/p", 3, NOW - 1), ended("b", "/p", 1, NOW - DAY)],
            0,
        ),
        7,
        NOW,
    );
    let text = stats::render(&thirds, false);
    assert!(text.contains(&bar(1, "#", 14, "1")), "⌈40/3⌉ = 14\n{text}");
    assert!(text.contains(&bar(0, "#", 40, "3")), "{text}");
    assert!(!text.contains("skipped"), "{text}");
    let empty = stats::render(
        &stats::report(Path::new("f"), records(vec![], 0), 7, NOW),
        false,
    );
    assert_eq!(
        empty,
        "What the graph saved, last 7 days (f)\n  0 sessions, 0 reads redirected, 0 tokens kept out, 0 tokens of graph answers, net 0 tokens\n  no sessions recorded in this window\n"
    );
}

// SAVE-4: the user's warning names the file and the reason, and says the session goes on.
#[test]
fn save_4_the_failure_notice_names_the_file_and_the_reason() {
    let notice = stats::failure_notice("/agent/gortex-stats.jsonl: Permission denied\u{1b}[2J");
    assert_eq!(
        notice,
        "pi-gortex could not record what the graph saved (/agent/gortex-stats.jsonl: Permission denied\\u{1b}[2J); counting goes on, `/gortex` shows this session's figures."
    );
}

// SAVE-4: the file's bound is 32 MiB, trimmed to its newest 16 MiB, and a read takes at most twice
// the bound (a file another writer has just grown past it still reads whole).
#[test]
fn save_4_the_default_bound_is_32_mib_and_a_read_takes_twice_that() {
    assert_eq!(stats::TRIM_BYTES, 33_554_432);
    assert_eq!(stats::MAX_READ_BYTES, 67_108_864);
}
