//! MCP-1: `<bin> daemon start --detach` runs fire and forget, in its own
//! process group with stdio ignored, is reaped in the background (no zombie),
//! and a launcher that cannot even spawn is ignored.

// Its launchers are `/bin/sh` scripts and it checks the process group: Unix only.
#![cfg(unix)]

mod common;
mod script_file;

use std::time::Duration;

use pi_gortex_runtime::mcp::daemon::launch_daemon;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_1_the_launcher_runs_detached_in_its_own_group_and_is_reaped() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("launch");
    let bin = dir.path().join("gortex");
    // Records argv, its pid and process group, and where stdin/stdout point.
    script_file::write_executable(
        &bin,
        &format!(
            "#!/bin/sh\necho \"$* $$ $(cut -d' ' -f5 /proc/$$/stat) $(readlink /proc/$$/fd/0) $(readlink /proc/$$/fd/1)\" > '{}.tmp'\nmv '{}.tmp' '{}'\n",
            report.display(),
            report.display(),
            report.display()
        ),
    );

    launch_daemon(&bin.clone().into_os_string(), &[], None);
    assert!(common::eventually(Duration::from_secs(5), || report.exists()).await);
    let line = std::fs::read_to_string(&report).unwrap();
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields[..3], ["daemon", "start", "--detach"]);
    let (pid, group) = (fields[3], fields[4]);
    assert_eq!(pid, group, "leads its own process group");
    let our_group = std::fs::read_to_string("/proc/self/stat").unwrap();
    assert_ne!(our_group.split(' ').nth(4), Some(group));
    assert_eq!(fields[5..], ["/dev/null", "/dev/null"], "stdio ignored");
    let proc_entry = format!("/proc/{pid}");
    assert!(
        common::eventually(Duration::from_secs(5), || !std::path::Path::new(
            &proc_entry
        )
        .exists())
        .await,
        "reaped in the background: no zombie left"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_1_a_launcher_that_cannot_spawn_is_ignored() {
    // Ignored means: no panic, no error for the caller to handle, and
    // nothing left behind (no reaper task waiting on a child that never was).
    let runtime = tokio::runtime::Handle::current();
    let before = runtime.metrics().num_alive_tasks();
    launch_daemon(&"/nonexistent/gortex".into(), &[], None);
    assert_eq!(
        runtime.metrics().num_alive_tasks(),
        before,
        "a launcher that cannot spawn leaves no task behind"
    );
    // The spawnable case does leave its reaper task, so the count above can
    // tell the two apart. The launcher waits for a file to go away: one that
    // exited at once (`/bin/true`) could be reaped before the count is read.
    let dir = tempfile::tempdir().unwrap();
    let hold = dir.path().join("hold");
    std::fs::write(&hold, "").unwrap();
    let bin = dir.path().join("gortex");
    script_file::write_executable(
        &bin,
        &format!(
            "#!/bin/sh\nwhile [ -e '{}' ]; do sleep 0.05; done\n",
            hold.display()
        ),
    );
    launch_daemon(&bin.into_os_string(), &[], None);
    assert_eq!(runtime.metrics().num_alive_tasks(), before + 1);
    std::fs::remove_file(&hold).unwrap();
    assert!(
        common::eventually(Duration::from_secs(10), || runtime
            .metrics()
            .num_alive_tasks()
            == before)
        .await,
        "the reaper task ends once the launcher exits"
    );
}
