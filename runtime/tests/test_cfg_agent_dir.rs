//! CFG-3: the agent dir follows Pi's rules, and the global sidecar is read
//! from `<agentDir>/extensions/gortex.json`.

mod common_config;

use std::path::{Path, PathBuf};

use common_config::{env_map, inputs, temp_dir, write_file};
use pi_gortex_runtime::config::{agent_dir, resolve, Layer};

#[test]
fn default_is_home_dot_pi_agent() {
    let home = Path::new("/home/u");
    assert_eq!(
        agent_dir(&env_map(&[]), home),
        PathBuf::from("/home/u/.pi/agent")
    );
    assert_eq!(
        agent_dir(&env_map(&[("PI_CODING_AGENT_DIR", "   ")]), home),
        PathBuf::from("/home/u/.pi/agent"),
        "blank counts as unset"
    );
}

#[test]
fn tilde_forms_expand_against_home() {
    let home = Path::new("/home/u");
    assert_eq!(
        agent_dir(&env_map(&[("PI_CODING_AGENT_DIR", " ~ ")]), home),
        PathBuf::from("/home/u")
    );
    assert_eq!(
        agent_dir(&env_map(&[("PI_CODING_AGENT_DIR", "~/pi/agent")]), home),
        PathBuf::from("/home/u/pi/agent")
    );
}

#[test]
fn other_values_are_used_verbatim() {
    let home = Path::new("/home/u");
    assert_eq!(
        agent_dir(&env_map(&[("PI_CODING_AGENT_DIR", " /srv/agent ")]), home),
        PathBuf::from("/srv/agent")
    );
    assert_eq!(
        agent_dir(&env_map(&[("PI_CODING_AGENT_DIR", "~user/x")]), home),
        PathBuf::from("~user/x"),
        "only `~` and `~/` expand"
    );
}

#[test]
fn global_sidecar_is_read_from_the_agent_dir() {
    let root = temp_dir();
    let agent = root.path().join("custom-agent");
    write_file(
        &agent.join("extensions/gortex.json"),
        r#"{"tools_preset":"edit"}"#,
    );
    let config = resolve(&inputs(
        &[("PI_CODING_AGENT_DIR", agent.to_str().expect("utf8"))],
        &root.path().join("repo"),
        &root.path().join("home"),
    ));
    assert_eq!(config.tools_preset, "edit");
    assert_eq!(config.provenance.tools_preset, Layer::Global);
    assert_eq!(config.agent_dir, agent);
    assert_eq!(config.sidecars.global, agent.join("extensions/gortex.json"));
}
