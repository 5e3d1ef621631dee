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
