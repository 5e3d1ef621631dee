/**
 * no-handlers.ts - an extension that subscribes to nothing: the baseline of
 * bench/node/per_call.mjs, where Pi dispatches a tool call's events the way it does for a
 * server in its own mcp.json with no extension listening.
 */
export default function noHandlers(_pi: unknown): void {}
