//! A sidecar's `"$schema"` member is for editors: the loader ignores it, whatever its value,
//! without a warning, and reads the other keys as usual.

mod common_config;

use common_config::{inputs, temp_dir, write_file};
use pi_gortex_runtime::config::resolve;

#[test]
fn schema_member_is_ignored_without_a_warning() {
    for schema in [
        r#""../node_modules/pi-gortex/schema/sidecar.schema.json""#,
        "42",
        "null",
    ] {
        let root = temp_dir();
        let cwd = root.path().join("repo");
        write_file(
            &cwd.join(".pi/gortex.json"),
            &format!(r#"{{"$schema":{schema},"enforce":false}}"#),
        );
        let config = resolve(&inputs(&[], &cwd, root.path()));
        assert!(
            config.warnings.is_empty(),
            "{schema}: {:?}",
            config.warnings
        );
        assert!(!config.enforce, "{schema}: the other keys still apply");
    }
}
