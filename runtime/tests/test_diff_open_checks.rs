//! Diff reads at the trust boundary: the boundary is
//! checked again when a file is opened (DIFF-8), the open never blocks and
//! the type comes from the opened descriptor (DIFF-9), a dangling symlink is
//! judged by where it points, a relative or empty cwd contains nothing, and
//! a snapshot that takes too long is given up with a note (DIFF-23).

mod links;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pi_gortex_runtime::diff::paths::{candidates, Boundary};
use pi_gortex_runtime::diff::snapshot::{
    race_time_limit, snapshot_in, within_time_limit, SkipReason, Snapshot, Snapshots,
};
use pi_gortex_runtime::diff::{compare, edit_candidates};

fn session() -> (tempfile::TempDir, PathBuf, tempfile::TempDir, PathBuf) {
    let repo = tempfile::tempdir().expect("repo");
    let cwd = std::fs::canonicalize(repo.path()).expect("canonical");
    std::fs::create_dir(cwd.join(".git")).expect(".git");
    let outside = tempfile::tempdir().expect("outside");
    let secret = std::fs::canonicalize(outside.path())
        .expect("canonical")
        .join("secret.txt");
    std::fs::write(&secret, "TOP SECRET\n").expect("secret");
    (repo, cwd, outside, secret)
}

#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn diff_8_a_file_swapped_for_a_symlink_out_after_listing_is_not_read() {
    let (_repo, cwd, _outside, secret) = session();
    let file = cwd.join("a.txt");
    std::fs::write(&file, "a\n").unwrap();
    let listed = candidates(&["a.txt".to_string()], &cwd);
    assert_eq!(listed, vec![file.clone()]);
    // Swapped after the listing, before the read.
    std::fs::remove_file(&file).unwrap();
    links::symlink(&secret, &file).unwrap();
    let snap = snapshot_in(&file, &Boundary::for_cwd(&cwd));
    assert!(
        matches!(
            snap,
            Snapshot::Skipped {
                reason: SkipReason::Silent,
                ..
            }
        ),
        "the outside file must not be read: {snap:?}"
    );
}

#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn diff_8_a_symlink_to_a_file_inside_is_still_followed() {
    let (_repo, cwd, _outside, _secret) = session();
    std::fs::write(cwd.join("real.txt"), "inside\n").unwrap();
    links::symlink("real.txt", cwd.join("link.txt")).unwrap();
    let snap = snapshot_in(&cwd.join("link.txt"), &Boundary::for_cwd(&cwd));
    assert_eq!(snap.normalized(), Some("inside\n"));
}

// FIFOs exist on Unix only; Windows devices and pipes are the Windows case.
#[cfg(unix)]
#[test]
fn diff_9_a_fifo_swapped_in_does_not_block_the_read() {
    let (_repo, cwd, _outside, _secret) = session();
    let fifo = cwd.join("pipe.txt");
    let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo(3) with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let (done, finished) = std::sync::mpsc::channel();
    let path = fifo.clone();
    let boundary = Boundary::for_cwd(&cwd);
    std::thread::spawn(move || {
        let _ = done.send(snapshot_in(&path, &boundary));
    });
    let snap = finished
        .recv_timeout(Duration::from_secs(5))
        .expect("a FIFO with no writer must not block the snapshot");
    assert!(
        matches!(
            snap,
            Snapshot::Skipped {
                reason: SkipReason::Silent,
                ..
            }
        ),
        "{snap:?}"
    );
}

#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn diff_8_a_dangling_symlink_is_judged_by_where_it_points() {
    let (_repo, cwd, outside, _secret) = session();
    let target = std::fs::canonicalize(outside.path())
        .unwrap()
        .join("new.txt");
    links::symlink(&target, cwd.join("dangling.txt")).unwrap();
    let args = serde_json::json!({"path": "dangling.txt"});
    let listed = edit_candidates("write_file", &args, &cwd).expect("an edit");
    assert!(
        listed.is_empty(),
        "a write through it lands outside: {listed:?}"
    );
    // One that points inside stays a candidate.
    links::symlink(cwd.join("later.txt"), cwd.join("inside.txt")).unwrap();
    let args = serde_json::json!({"path": "inside.txt"});
    let listed = edit_candidates("write_file", &args, &cwd).expect("an edit");
    assert_eq!(listed, vec![cwd.join("inside.txt")]);
}

#[test]
fn diff_8_a_relative_or_empty_cwd_contains_nothing() {
    let (_repo, _cwd, _outside, secret) = session();
    let raw = vec![secret.to_string_lossy().into_owned(), "x.txt".to_string()];
    for cwd in ["", ".", "relative/dir"] {
        assert!(candidates(&raw, Path::new(cwd)).is_empty(), "cwd {cwd:?}");
        assert!(
            !Boundary::for_cwd(Path::new(cwd)).contains(&secret),
            "cwd {cwd:?}"
        );
        assert!(!Boundary::new(Path::new(cwd), Path::new(cwd)).contains(&secret));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_23_a_snapshot_past_the_time_limit_is_dropped_with_a_note() {
    let path = PathBuf::from("/repo/slow.txt");
    let (release, blocked) = std::sync::mpsc::channel::<()>();
    let started = Instant::now();
    // A read that cannot finish until the test lets it (a hung mount).
    let after = within_time_limit(vec![path.clone()], Duration::from_millis(300), move || {
        let _ = blocked.recv();
        Snapshots::new()
    })
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "never waits past the limit"
    );
    let _ = release.send(());
    assert!(matches!(
        after.get(&path),
        Some(Snapshot::Skipped {
            reason: SkipReason::TimedOut,
            ..
        })
    ));
    let before: Snapshots = [(path.clone(), Snapshot::Missing)].into();
    let details = serde_json::to_value(compare(&before, &after, Path::new("/repo"))).unwrap();
    assert_eq!(
        details["diffs"][0]["note"],
        "not diffed: reading the file took too long"
    );
}

/// Starts `race_time_limit` and awaits its first answer: the value, how long
/// it took, and the count of `done` calls (which must stay 1).
async fn race(
    limit: Duration,
    work: impl FnOnce() -> u32 + Send + 'static,
) -> (Option<u32>, Duration, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let (answer, answered) = tokio::sync::oneshot::channel();
    let counted = calls.clone();
    let started = Instant::now();
    race_time_limit(limit, work, move |value| {
        counted.fetch_add(1, Ordering::SeqCst);
        let _ = answer.send(value);
    });
    let value = answered.await.expect("done ran");
    (value, started.elapsed(), calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_23_a_native_read_within_the_limit_answers_once_with_its_value() {
    let limit = Duration::from_millis(300);
    let (value, _, calls) = race(limit, || 7).await;
    assert_eq!(value, Some(7));
    // Past the limit: the timer has fired and found the answer taken.
    tokio::time::sleep(limit + Duration::from_millis(200)).await;
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_23_a_native_read_past_the_limit_answers_once_at_the_limit() {
    let (release, blocked) = std::sync::mpsc::channel::<()>();
    // A read that cannot finish until the test lets it (a hung mount).
    let (finished, read_finished) = tokio::sync::oneshot::channel();
    let work = move || {
        let _ = blocked.recv_timeout(Duration::from_secs(10));
        let _ = finished.send(());
        9
    };
    let limit = Duration::from_millis(300);
    let (value, waited, calls) = race(limit, work).await;
    assert_eq!(value, None, "the limit answered, not the read");
    assert!(waited >= limit, "not before the limit: {waited:?}");
    assert!(
        waited < Duration::from_secs(5),
        "never waits past the limit: {waited:?}"
    );
    // The read now finishes late: its answer is dropped, `done` does not run again.
    let _ = release.send(());
    read_finished.await.expect("the read finished");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}
