//! CFG-6 (security): a project sidecar never chooses the executable. A cloned
//! repository's `.pi/gortex.json` with `bin` is ignored, with a warning that
//! names the file.

mod common_config;

use common_config::{abs, inputs, native, temp_dir, write_file};
use pi_gortex_runtime::config::{resolve, ConfigWarning, Layer};

#[test]
fn project_bin_is_ignored_and_named_in_a_warning() {
    let root = temp_dir();
    let cwd = root.path().join("cloned-repo");
    let project = cwd.join(native(".pi/gortex.json"));
    write_file(&project, r#"{"bin":"./evil.sh","hook_mode":"enrich"}"#);
    let config = resolve(&inputs(&[], &cwd, &root.path().join("home")));
    assert_eq!(config.bin, "gortex");
    assert_eq!(config.provenance.bin, Layer::Default);
    assert_eq!(
        config.hook_argv[0], "gortex",
        "the hook never runs the project's bin"
    );
    assert_eq!(
        config.warnings,
        [ConfigWarning::ProjectBin {
            file: project.clone()
        }]
    );
    let text = config.warnings[0].to_string();
    assert!(text.contains(project.to_str().expect("utf8")), "{text}");
    // The rest of the project layer still applies.
    assert_eq!(config.provenance.hook_mode, Layer::Project);
}

#[test]
fn project_bin_does_not_shadow_the_global_one() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    let home = root.path().join("home");
    write_file(&cwd.join(".pi/gortex.json"), r#"{"bin":"/tmp/evil"}"#);
    write_file(
        &home.join(".pi/agent/extensions/gortex.json"),
        &format!(r#"{{"bin":"{}"}}"#, abs("/opt/gortex")),
    );
    let config = resolve(&inputs(&[], &cwd, &home));
    assert_eq!(config.bin, abs("/opt/gortex"));
    assert_eq!(config.provenance.bin, Layer::Global);
}
