//! DIFF-9: how a file is read for diffing.

use std::fs;

use pi_gortex_runtime::diff::snapshot::{
    snapshot, snapshot_all, SkipReason, Snapshot, MAX_FILE_BYTES,
};

#[test]
fn a_missing_file_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    assert_eq!(snapshot(&tmp.path().join("nope.txt")), Snapshot::Missing);
    assert_eq!(
        snapshot(&tmp.path().join("nope").join("deeper.txt")),
        Snapshot::Missing
    );
}

#[test]
fn a_directory_is_skipped_silently_with_size_and_mtime() {
    let tmp = tempfile::tempdir().unwrap();
    match snapshot(tmp.path()) {
        Snapshot::Skipped {
            reason,
            size,
            mtime,
        } => {
            assert_eq!(reason, SkipReason::Silent);
            assert!(size.is_some() && mtime.is_some());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_file_over_one_mib_is_skipped_with_its_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let at_limit = tmp.path().join("at.txt");
    let over = tmp.path().join("over.txt");
    fs::write(&at_limit, vec![b'a'; MAX_FILE_BYTES as usize]).unwrap();
    fs::write(&over, vec![b'a'; MAX_FILE_BYTES as usize + 1]).unwrap();
    assert!(matches!(snapshot(&at_limit), Snapshot::Text { .. }));
    match snapshot(&over) {
        Snapshot::Skipped { reason, size, .. } => {
            assert_eq!(reason.text(), "over 1 MiB");
            assert_eq!(size, Some(MAX_FILE_BYTES + 1));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn nul_bytes_mean_binary_and_invalid_utf8_means_not_text() {
    let tmp = tempfile::tempdir().unwrap();
    let binary = tmp.path().join("b.bin");
    let latin1 = tmp.path().join("l.txt");
    fs::write(&binary, b"abc\0def").unwrap();
    fs::write(&latin1, b"caf\xe9\n").unwrap();
    assert!(matches!(
        snapshot(&binary),
        Snapshot::Skipped {
            reason: SkipReason::Binary,
            ..
        }
    ));
    assert_eq!(SkipReason::Binary.text(), "binary file");
    assert!(matches!(
        snapshot(&latin1),
        Snapshot::Skipped {
            reason: SkipReason::NotUtf8,
            ..
        }
    ));
    assert_eq!(SkipReason::NotUtf8.text(), "not UTF-8 text");
}

#[test]
fn text_keeps_raw_bytes_and_normalizes_one_bom_and_crlf() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("t.txt");
    let raw = b"\xEF\xBB\xBF\xEF\xBB\xBFa\r\nb\rc\n".to_vec();
    fs::write(&file, &raw).unwrap();
    match snapshot(&file) {
        Snapshot::Text { raw: kept, text } => {
            assert_eq!(kept, raw);
            // Only one BOM goes; a lone CR stays.
            assert_eq!(text, "\u{feff}a\nb\rc\n");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn snapshot_all_keys_by_path() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a.txt");
    fs::write(&a, "x").unwrap();
    let all = snapshot_all(&[a.clone(), tmp.path().join("b.txt")]);
    assert_eq!(all.len(), 2);
    assert!(matches!(all[&a], Snapshot::Text { .. }));
    assert_eq!(all[&tmp.path().join("b.txt")], Snapshot::Missing);
}
