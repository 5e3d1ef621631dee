//! CFG-4 and the sidecar checks: a file that does not parse, is not an
//! object, holds a wrong-typed value or an unknown key gives exactly one
//! warning naming the file (and line and column, or the key), and only the
//! bad part falls through. Nothing is fatal.

mod common_config;

use common_config::{inputs, native, temp_dir, write_file};
use pi_gortex_runtime::config::{resolve, ConfigWarning, Layer};

#[test]
fn unparseable_project_falls_through_to_global_with_line_and_column() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    let home = root.path().join("home");
    let project = cwd.join(native(".pi/gortex.json"));
    write_file(&project, "{\n  \"enforce\": false,\n  oops\n}\n");
    write_file(
        &home.join(".pi/agent/extensions/gortex.json"),
        r#"{"enforce":false}"#,
    );
    let config = resolve(&inputs(&[], &cwd, &home));
    assert!(!config.enforce);
    assert_eq!(
        config.provenance.enforce,
        Layer::Global,
        "the whole project layer fell through"
    );
    assert_eq!(config.warnings.len(), 1, "{:?}", config.warnings);
    match &config.warnings[0] {
        ConfigWarning::Unparseable {
            file, line, column, ..
        } => {
            assert_eq!(file, &project);
            assert_eq!((*line, *column), (3, 3));
        }
        other => panic!("unexpected {other:?}"),
    }
    let text = config.warnings[0].to_string();
    assert!(
        text.starts_with(&format!("{}:3:3: not valid JSON", project.display())),
        "{text}"
    );
}

#[test]
fn non_object_json_reads_as_empty() {
    for (body, found) in [
        ("null", "null"),
        ("[1]", "array"),
        ("3", "number"),
        ("\"x\"", "string"),
    ] {
        let root = temp_dir();
        let cwd = root.path().join("repo");
        let project = cwd.join(native(".pi/gortex.json"));
        write_file(&project, body);
        let config = resolve(&inputs(&[], &cwd, root.path()));
        assert_eq!(config.provenance.enforce, Layer::Default);
        assert_eq!(
            config.warnings,
            [ConfigWarning::NotAnObject {
                file: project,
                found: found.to_string()
            }],
            "{body}"
        );
    }
}

#[test]
fn wrong_type_skips_only_that_key() {
    let root = temp_dir();
    let home = root.path().join("home");
    let global = home.join(native(".pi/agent/extensions/gortex.json"));
    // CFG-9: the string "false" is not a sidecar boolean.
    write_file(&global, r#"{"enforce":"false","native_mcp":false}"#);
    let config = resolve(&inputs(&[], &root.path().join("repo"), &home));
    assert!(config.enforce, "\"false\" skipped, default true");
    assert_eq!(config.provenance.enforce, Layer::Default);
    assert!(!config.native_mcp);
    assert_eq!(config.provenance.native_mcp, Layer::Global);
    assert_eq!(
        config.warnings,
        [ConfigWarning::WrongType {
            file: global.clone(),
            key: "enforce".into(),
            expected: "boolean".into(),
            found: "string".into()
        }]
    );
    let text = config.warnings[0].to_string();
    assert!(
        text.contains(global.to_str().expect("utf8")) && text.contains("`enforce`"),
        "{text}"
    );
}

#[test]
fn unknown_key_is_ignored_with_one_warning() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    let project = cwd.join(native(".pi/gortex.json"));
    write_file(&project, r#"{"hook_mod":"enrich","enforce":false}"#);
    let config = resolve(&inputs(&[], &cwd, root.path()));
    assert!(!config.enforce);
    assert_eq!(
        config.warnings,
        [ConfigWarning::UnknownKey {
            file: project,
            key: "hook_mod".into()
        }]
    );
}

#[test]
fn missing_files_are_silent_and_unreadable_ones_warn() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    let clean = resolve(&inputs(&[], &cwd, root.path()));
    assert!(clean.warnings.is_empty());
    // A directory where the file should be cannot be read as a file.
    std::fs::create_dir_all(cwd.join(native(".pi/gortex.json"))).expect("mkdir");
    let config = resolve(&inputs(&[], &cwd, root.path()));
    assert_eq!(config.warnings.len(), 1);
    assert!(
        matches!(&config.warnings[0], ConfigWarning::Unreadable { file, .. } if file == &cwd.join(native(".pi/gortex.json")))
    );
}

#[test]
fn invalid_env_boolean_warns_and_falls_through() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    write_file(
        &cwd.join(native(".pi/gortex.json")),
        r#"{"native_mcp":false}"#,
    );
    let config = resolve(&inputs(
        &[("GORTEX_NATIVE_MCP", "maybe")],
        &cwd,
        root.path(),
    ));
    assert!(!config.native_mcp);
    assert_eq!(config.provenance.native_mcp, Layer::Project);
    assert_eq!(
        config.warnings,
        [ConfigWarning::EnvNotBoolean {
            var: "GORTEX_NATIVE_MCP".into(),
            value: "maybe".into()
        }]
    );
}

/// The runtime and the schema agree: every valid `SidecarConfig` vector
/// reads without a warning, every invalid one gives at least one.
#[test]
fn schema_example_vectors_agree_with_the_warnings() {
    let examples =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/examples/SidecarConfig");
    for (kind, expect_warning) in [("valid", false), ("invalid", true)] {
        let mut seen = 0;
        for entry in std::fs::read_dir(examples.join(kind)).expect("vectors") {
            let path = entry.expect("entry").path();
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            seen += 1;
            let root = temp_dir();
            let home = root.path().join("home");
            let text = std::fs::read_to_string(&path).expect("read");
            write_file(&home.join(".pi/agent/extensions/gortex.json"), &text);
            let config = resolve(&inputs(&[], &root.path().join("repo"), &home));
            // The vectors' `bin` is a Unix absolute path, which names a path relative to the
            // current drive on Windows, so the CFG-18 warning is the right reading there.
            let warnings: Vec<_> = config
                .warnings
                .iter()
                .filter(|w| !(cfg!(windows) && matches!(w, ConfigWarning::RelativeBin { value, .. } if value.starts_with('/'))))
                .collect();
            assert_eq!(
                !warnings.is_empty(),
                expect_warning,
                "{}: {:?}",
                path.display(),
                warnings
            );
        }
        assert!(seen >= 3, "{kind} vectors found: {seen}");
    }
}
