//! NAT-2 (selection) and NAT-6 (connector check) as one decision, and the
//! NAT-5 refusal text.

use pi_gortex_runtime::native::{
    choose_path, refusal_notice, HostCapabilities, OwnClientReason, ToolPath,
};

const ALL: HostCapabilities = HostCapabilities {
    has_register_mcp_server: true,
    has_mcp_command: true,
    native_mcp: true,
    bin_resolves: true,
};

#[test]
fn native_only_when_every_condition_holds() {
    assert_eq!(choose_path(&ALL), ToolPath::Native);
}

#[test]
fn each_missing_condition_picks_the_own_client_with_its_reason() {
    let cases = [
        (
            HostCapabilities {
                native_mcp: false,
                ..ALL
            },
            OwnClientReason::NativeDisabled,
        ),
        (
            HostCapabilities {
                has_register_mcp_server: false,
                ..ALL
            },
            OwnClientReason::HostLacksNativeMcp,
        ),
        (
            HostCapabilities {
                bin_resolves: false,
                ..ALL
            },
            OwnClientReason::BinaryDoesNotResolve,
        ),
        (
            HostCapabilities {
                has_mcp_command: false,
                ..ALL
            },
            OwnClientReason::NoMcpConnector,
        ),
    ];
    for (caps, reason) in cases {
        assert_eq!(
            choose_path(&caps),
            ToolPath::OwnClient { reason },
            "{caps:?}"
        );
    }
}

#[test]
fn pi_087_never_goes_native_whatever_else_holds() {
    let pi_087 = HostCapabilities {
        has_register_mcp_server: false,
        has_mcp_command: false,
        ..ALL
    };
    assert!(matches!(choose_path(&pi_087), ToolPath::OwnClient { .. }));
}

#[test]
fn refusal_notice_text() {
    assert_eq!(
        refusal_notice("server name taken"),
        "Pi refused the gortex MCP server (server name taken), so the extension runs its own client."
    );
}
