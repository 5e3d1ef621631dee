// The native path (NAT-1..9, NAT-13/14): registration at factory time, the
// refusal reason, the /mcp connector check with withdrawal, and the
// readiness poll of the first turn.
import type { Addon, PathChoice } from "./boundary.ts";
import type { PiLike } from "./host.ts";
import { pollDelay, swallow, toolNames } from "./host.ts";

export const MCP_SERVER_NAME = "gortex";
export const MCP_TOOL_PREFIX = "mcp__gortex__";
const NATIVE_READY_WAIT_MS = 5000;
// NAT-9 polls every 10 ms, not the spec's 100 ms: Pi lists a fast server's tools some tens of ms
// into the first turn, and a 100 ms step made every native start wait up to 100 ms past that
// (measured with make bench-startup, docs/benchmarks.md). One getAllTools() is microseconds.
const NATIVE_POLL_MS = 10;

export interface PathState {
  native: boolean;
  refusal?: string;
}

/** NAT-2 at factory time; a throwing registerMcpServer is a refusal (NAT-5). */
export function choosePath(pi: PiLike, addon: Addon, generation: number, instance: number): PathState {
  const hasRegister = typeof pi.registerMcpServer === "function";
  const choice: PathChoice = addon.choosePath(generation, instance, { hasRegisterMcpServer: hasRegister });
  if (!choice.native || !hasRegister) return { native: false };
  try {
    pi.registerMcpServer!(MCP_SERVER_NAME, choice.serverConfig);
    return { native: true };
  } catch (error) {
    return { native: false, refusal: error instanceof Error ? error.message : String(error) };
  }
}

/** NAT-6: false when no loaded extension registers `/mcp`. */
export function hasMcpConnector(pi: PiLike): boolean {
  try {
    return pi.getCommands().some((command) => command.name === "mcp");
  } catch {
    return true;
  }
}

/** NAT-6 steps 1-2: withdraw the registration; the caller latches own. */
export function withdrawServer(pi: PiLike): void {
  swallow(() => pi.unregisterMcpServer?.(MCP_SERVER_NAME));
}

/** NAT-9: polls getAllTools() for a gortex tool, at most 5 s. */
export async function awaitNativeTools(pi: PiLike, addon: Addon): Promise<boolean> {
  const deadline = Date.now() + NATIVE_READY_WAIT_MS;
  for (;;) {
    const names = swallow(() => toolNames(pi));
    if (names && addon.nativeToolsPresent(names)) return true;
    if (Date.now() >= deadline) return false;
    await pollDelay(NATIVE_POLL_MS);
  }
}
