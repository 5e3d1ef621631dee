// PKG-4: the extension when the native core failed to load. It still holds
// the first turn's place in the protocol: the model is told once, per
// session, that graph tools are unavailable and how to retry. The text is
// SES-13's, kept here because the core that normally owns it is missing.
import type { PiLike } from "./host.ts";

export function bridgeDownText(error: string): string {
  return `[Gortex] graph tools are unavailable this session (${error}). Tell the user to run /reload to retry the connection.`;
}

export function createDegraded(pi: PiLike, error: string): void {
  let reported = false;
  pi.on("session_start", () => {
    reported = false;
    return undefined;
  });
  pi.on("before_agent_start", () => {
    if (reported) return undefined;
    reported = true;
    return { message: { customType: "gortex", content: bridgeDownText(error), display: false, details: { briefing: false } } };
  });
}
