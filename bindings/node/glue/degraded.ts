// The extension when the native core failed to load. It still holds
// the first turn's place in the protocol: the model is told once, per
// session, that graph tools are unavailable and how to retry (the core's words for it,
// kept here because the core that normally owns it is missing). The user is
// told too, once per load and at error level: which platform this
// is, which ones have a core, what to do, and that read discipline is off.
// /reload cannot fix a missing core, so the user's text does not offer it.
import type { Ctx, PiLike } from "./host.ts";
import { swallow } from "./host.ts";

export type LoadFailure = { error: string; tag: string; supported: string[] };

/** The user's notification when the core cannot load. */
function loadFailureNotice({ error, tag, supported }: LoadFailure): string {
  const what = supported.includes(tag)
    ? `Reinstall pi-gortex with optional dependencies enabled (npm installs the core as pi-gortex-${tag}; --omit=optional or --no-optional skips it), or build it from a checkout with \`make pack\`.`
    : `There is no prebuilt core for ${tag}; build one from a checkout with \`make pack\`, or use a supported platform.`;
  const cores = supported.length ? supported.join(", ") : "no platform (the package manifest is unreadable)";
  const off = "Until then Gortex graph tools and read discipline (the hook on every tool call) are off.";
  return [`pi-gortex: ${error}.`, `Platform ${tag}; prebuilt cores exist for ${cores}.`, what, off].join("\n");
}

export function createDegraded(pi: PiLike, failure: LoadFailure): void {
  let reported = false;
  let userTold = false;
  pi.on("session_start", (_event: unknown, ctx: Ctx) => {
    reported = false;
    if (userTold || !ctx?.hasUI) return;
    userTold = true;
    swallow(() => ctx.ui.notify(loadFailureNotice(failure), "error"));
  });
  pi.on("before_agent_start", () => {
    if (reported) return undefined;
    reported = true;
    const content = `[Gortex] graph tools are unavailable this session (${failure.error}). Tell the user to run /reload to retry the connection.`;
    return { message: { customType: "gortex", content, display: false, details: { briefing: false } } };
  });
}
