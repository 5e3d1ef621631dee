// PKG-4: the extension when the native core failed to load. It still holds
// the first turn's place in the protocol: the model is told once, per
// session, that graph tools are unavailable and how to retry. The text is
// SES-13's, kept here because the core that normally owns it is missing.
// The user is told too, once per load and at error level (PKG-10): which
// platform this is, which ones have a core, what to do, and that read
// discipline is off. /reload cannot fix a missing core, so the user's text
// does not offer it.
import type { Ctx, PiLike } from "./host.ts";
import { swallow } from "./host.ts";

export function bridgeDownText(error: string): string {
  return `[Gortex] graph tools are unavailable this session (${error}). Tell the user to run /reload to retry the connection.`;
}

/** The user's notification when the core cannot load. */
export function loadFailureNotice(error: string, tag: string, supported: string[]): string {
  const known = supported.includes(tag);
  const what = known
    ? `Reinstall pi-gortex with optional dependencies enabled (npm installs the core as pi-gortex-${tag}; --omit=optional or --no-optional skips it), or build it from a checkout with \`make pack\`.`
    : `There is no prebuilt core for ${tag}; build one from a checkout with \`make pack\`, or use a supported platform.`;
  return [
    `pi-gortex: ${error}.`,
    `Platform ${tag}; prebuilt cores exist for ${supported.length ? supported.join(", ") : "no platform (the package manifest is unreadable)"}.`,
    what,
    "Until then Gortex graph tools and read discipline (the hook on every tool call) are off.",
  ].join("\n");
}

export interface LoadFailure {
  error: string;
  tag: string;
  supported: string[];
}

export function createDegraded(pi: PiLike, failure: LoadFailure): void {
  let reported = false;
  let userTold = false;
  pi.on("session_start", (_event: unknown, ctx: Ctx) => {
    reported = false;
    if (!userTold && ctx?.hasUI) {
      userTold = true;
      swallow(() => ctx.ui?.notify?.(loadFailureNotice(failure.error, failure.tag, failure.supported), "error"));
    }
    return undefined;
  });
  pi.on("before_agent_start", () => {
    if (reported) return undefined;
    reported = true;
    return {
      message: {
        customType: "gortex",
        content: bridgeDownText(failure.error),
        display: false,
        details: { briefing: false },
      },
    };
  });
}
