//! texts.mjs - the spec's exact user- and model-visible texts the suites compare verbatim.

export function aliasNote(bare) {
  return `Gortex's \`${bare}\` tool, registered as \`gortex_${bare}\` because Pi has a built-in \`${bare}\`. Gortex guidance and denial messages that name \`${bare}\` mean this tool.`;
}
export function unavailableText(error) {
  return `[Gortex] graph tools are unavailable this session (${error}). Tell the user to run /reload to retry the connection.`;
}
export const STILL_REGISTERING =
  "[Gortex] graph tools were still registering when this turn began, so a tool named below may not be callable yet. If one is missing, say so and tell the user to retry, or to run /reload if it stays missing. Don't fall back to native tools.";
export function staleModelText(v) {
  return `[Gortex] the daemon is gortex ${v}, older than the 0.61.2 this extension targets. A graph tool may be missing or behave unexpectedly. If one does, tell the user to run \`gortex upgrade\`.`;
}
export function staleUserText(v) {
  return `gortex ${v} is older than 0.61.2, which this extension needs. Graph tools and read discipline may be missing or wrong. Run \`gortex upgrade\`.`;
}
export function protocolUserText(installed, p) {
  return `${installed} answered the handshake with MCP protocol ${p}, not the 2025-11-25 this extension speaks. Tool calls may fail. Run \`gortex upgrade\`.`;
}
export function protocolModelText(p) {
  return `[Gortex] the daemon negotiated MCP protocol ${p} instead of 2025-11-25. A graph tool call may fail. If one does, tell the user to run \`gortex upgrade\`.`;
}
export function refusalText(reason) {
  return `Pi refused the gortex MCP server (${reason}), so the extension runs its own client.`;
}
export const NATIVE_DESCRIPTION =
  "Gortex code graph of the indexed repositories: symbol search, source reads, usages, call chains, change impact and graph-aware edits.";
