//! Sidecar parsing and configuration resolution (CFG-2..CFG-15) on
//! arbitrary files and environments.
//!
//! Input: three payloads split on 0xFF: environment lines `KEY=VALUE`, the
//! project sidecar text, the global sidecar text. Each sidecar is compared
//! with an independent reading of the spec (CFG-4/5/9: only an object
//! counts, a string key takes a non-blank string, trimmed, a boolean key
//! takes a JSON boolean) and the resolved configuration with a layer-by-layer
//! oracle. The security rule is checked on its own: the project sidecar
//! never chooses `bin` (CFG-6), whatever it holds.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pi_gortex_runtime::config::{
    agent_dir, hook_argv, normalize_hook_mode, parse_sidecar, preset_env, resolve_layers, HookMode,
    Layer, Scope, SidecarLayer, SidecarPaths, SidecarValues,
};
use serde_json::Value;

use super::input::payload;

/// CFG-5: a non-blank string, trimmed.
fn string_key(object: &serde_json::Map<String, Value>, key: &str) -> Option<String> {
    object
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

/// The spec's reading of one sidecar file.
fn expected_values(text: &str, scope: Scope) -> SidecarValues {
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(text) else {
        return SidecarValues::default();
    };
    let boolean = |key: &str| object.get(key).and_then(Value::as_bool);
    SidecarValues {
        bin: match scope {
            Scope::Project => None,
            Scope::Global => string_key(&object, "bin"),
        },
        hook_mode: string_key(&object, "hook_mode"),
        enforce: boolean("enforce"),
        tools_preset: string_key(&object, "tools_preset"),
        native_mcp: boolean("native_mcp"),
        prompt_context: boolean("prompt_context"),
        hook_prespawn: boolean("hook_prespawn"),
        daemon_autostart: boolean("daemon_autostart"),
        stats: boolean("stats"),
        stats_footer: boolean("stats_footer"),
    }
}

/// CFG-9 for the environment.
fn env_flag(env: &HashMap<String, String>, name: &str) -> Option<bool> {
    match env.get(name)?.trim().to_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

fn env_text(env: &HashMap<String, String>, name: &str) -> Option<String> {
    env.get(name)
        .map(|value| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

/// CFG-2: the first layer that supplies a value.
fn layered<T>(candidates: [(Option<T>, Layer); 3], default: T) -> (T, Layer) {
    for (value, layer) in candidates {
        if let Some(value) = value {
            return (value, layer);
        }
    }
    (default, Layer::Default)
}

fn parse_env(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|line| line.split_once('='))
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .collect()
}

fn resolve(
    env: &HashMap<String, String>,
    project: &SidecarLayer,
    global: &SidecarLayer,
) -> Resolved {
    let sidecars = SidecarPaths::new(Path::new("/cwd"), Path::new("/agent"));
    let config = resolve_layers(env, project, global, PathBuf::from("/agent"), sidecars);
    Resolved {
        bin: (config.bin.clone(), config.provenance.bin),
        hook_mode: (config.hook_mode, config.provenance.hook_mode),
        enforce: (config.enforce, config.provenance.enforce),
        tools_preset: (config.tools_preset.clone(), config.provenance.tools_preset),
        native_mcp: (config.native_mcp, config.provenance.native_mcp),
        prompt_context: (config.prompt_context, config.provenance.prompt_context),
        daemon_autostart: (config.daemon_autostart, config.provenance.daemon_autostart),
        hook_argv: config.hook_argv,
    }
}

#[derive(Debug, PartialEq)]
struct Resolved {
    bin: (String, Layer),
    hook_mode: (HookMode, Layer),
    enforce: (bool, Layer),
    tools_preset: (String, Layer),
    native_mcp: (bool, Layer),
    prompt_context: (bool, Layer),
    daemon_autostart: (bool, Layer),
    hook_argv: Vec<String>,
}

fn expected(env: &HashMap<String, String>, p: &SidecarValues, g: &SidecarValues) -> Resolved {
    let bin = layered(
        [
            (env_text(env, "GORTEX_BIN"), Layer::Env),
            (None, Layer::Project),
            (g.bin.clone(), Layer::Global),
        ],
        "gortex".to_string(),
    );
    let mode = layered(
        [
            (env_text(env, "GORTEX_HOOK_MODE"), Layer::Env),
            (p.hook_mode.clone(), Layer::Project),
            (g.hook_mode.clone(), Layer::Global),
        ],
        String::new(),
    );
    let hook_mode = (normalize_hook_mode(&mode.0), mode.1);
    let flag = |name: &str, project: Option<bool>, global: Option<bool>, default: bool| {
        layered(
            [
                (env_flag(env, name), Layer::Env),
                (project, Layer::Project),
                (global, Layer::Global),
            ],
            default,
        )
    };
    Resolved {
        hook_argv: hook_argv(&bin.0, hook_mode.0),
        bin,
        hook_mode,
        enforce: flag("GORTEX_ENFORCE", p.enforce, g.enforce, true),
        tools_preset: layered(
            [
                (env_text(env, "GORTEX_TOOLS"), Layer::Env),
                (p.tools_preset.clone(), Layer::Project),
                (g.tools_preset.clone(), Layer::Global),
            ],
            "core".to_string(),
        ),
        native_mcp: flag("GORTEX_NATIVE_MCP", p.native_mcp, g.native_mcp, true),
        prompt_context: flag(
            "GORTEX_PROMPT_CONTEXT",
            p.prompt_context,
            g.prompt_context,
            false,
        ),
        // CFG-20: a project sidecar counts only when it turns autostart off.
        daemon_autostart: flag(
            "GORTEX_DAEMON_AUTOSTART",
            p.daemon_autostart.filter(|on| !on),
            g.daemon_autostart,
            true,
        ),
    }
}

/// Parses both sidecars and resolves them against the environment.
pub fn run(data: &[u8]) {
    let env = parse_env(&String::from_utf8_lossy(payload(data, 0)));
    let project_text = String::from_utf8_lossy(payload(data, 1));
    let global_text = String::from_utf8_lossy(payload(data, 2));

    let project = parse_sidecar(
        Path::new("/cwd/.pi/gortex.json"),
        &project_text,
        Scope::Project,
    );
    let global = parse_sidecar(Path::new("/agent/gortex.json"), &global_text, Scope::Global);
    assert_eq!(
        project.values,
        expected_values(&project_text, Scope::Project)
    );
    assert_eq!(global.values, expected_values(&global_text, Scope::Global));

    let resolved = resolve(&env, &project, &global);
    assert_eq!(resolved, expected(&env, &project.values, &global.values));
    assert_ne!(resolved.bin.1, Layer::Project, "CFG-6");
    let without_project = resolve(&env, &SidecarLayer::default(), &global);
    assert_eq!(
        resolved.bin, without_project.bin,
        "the project cannot pick bin"
    );

    assert!(
        resolved.daemon_autostart.1 != Layer::Project || !resolved.daemon_autostart.0,
        "CFG-20: the project never turns autostart on"
    );

    let extra = preset_env(&resolved.tools_preset.0, &env);
    for (key, value) in &extra {
        assert!(key == "GORTEX_TOOLS" || key == "GORTEX_TOOLS_MODE", "{key}");
        assert!(!value.is_empty());
        let exported = env.get(key).is_some_and(|user| !user.is_empty());
        assert!(!exported, "an exported {key} is never overridden");
    }
    let _ = agent_dir(&env, Path::new("/home/u"));
}
