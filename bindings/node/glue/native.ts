// The native path's Pi calls (NAT-1..6): registration at factory time, a
// refusal handed to the core, and the withdrawal the core asks for.
import type { Addon, PathChoice } from "./boundary.ts";
import type { PiLike } from "./host.ts";
import { swallow } from "./host.ts";

/** NAT-2 at factory time; a throwing registerMcpServer is a refusal (NAT-5). */
export function registerNative(pi: PiLike, addon: Addon, generation: number, instance: number): PathChoice {
  const choice = addon.choosePath(generation, instance, {
    hasRegisterMcpServer: typeof pi.registerMcpServer === "function",
  });
  if (!choice.native) return choice;
  try {
    pi.registerMcpServer?.(choice.serverName, choice.serverConfig);
    return choice;
  } catch (error) {
    addon.refuseNative(generation, instance, error instanceof Error ? error.message : String(error));
    return { ...choice, native: false };
  }
}

/** NAT-6 steps 1-2: withdraw the registration; the core latched the own client. */
export function withdrawServer(pi: PiLike, serverName: string): void {
  swallow(() => pi.unregisterMcpServer?.(serverName));
}
