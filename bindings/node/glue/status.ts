// The bridge's state for the user: the footer status
// (`setStatus("gortex", …)`), `/gortex` (the status block) and
// `/gortex doctor` (the doctor report, run in process). The core keeps the
// path the instance took, picks the command and words the answer; the glue
// only supplies Pi's tool names and cwd and shows it.
import type { Bridge, Ctx } from "./host.ts";
import { cwdOf, notifyAll, swallow, toolNames } from "./host.ts";

function footerOf({ pi, addon, generation, instance }: Bridge): string | undefined {
  return swallow(() => addon.gortexStatus(generation, instance, { piTools: toolNames(pi) ?? [] }))?.footer;
}

/** STAT-1: the footer (the core's, or `footer`), only with a UI; errors swallowed (FAIL-3). */
export function showFooter(bridge: Bridge, ctx: Ctx | undefined, footer?: string): void {
  if (!ctx?.hasUI) return;
  const shown = footer ?? footerOf(bridge);
  if (shown) swallow(() => ctx.ui.setStatus("gortex", shown));
}

/** After a session start or a first turn: FAIL-4's panic warning, then the footer. */
export function afterStep(bridge: Bridge, ctx: Ctx | undefined): void {
  const { addon, generation, instance } = bridge;
  notifyAll(ctx, [swallow(() => addon.panicNotice(generation, instance))]);
  showFooter(bridge, ctx);
}

/** STAT-4: while the daemon reports indexing, the core re-asks the session hook off the turn;
 * the footer follows when the readiness changed. Not awaited: the turn never waits for it. */
export function refreshReadiness(bridge: Bridge, ctx: Ctx): void {
  const { pi, extension } = bridge;
  const changed = swallow(() => extension.refreshReadiness(cwdOf(pi, ctx)));
  void changed?.then(
    (yes) => yes && showFooter(bridge, ctx),
    () => undefined,
  );
}

/** STAT-2/3: `/gortex` and `/gortex doctor`: the core picks the command and words the reply. */
async function gortexCommand(bridge: Bridge, args: string, ctx: Ctx): Promise<void> {
  const { pi, extension } = bridge;
  try {
    const command = { args, cwd: cwdOf(pi, ctx), piTools: toolNames(pi) ?? [] };
    const reply = await extension.gortexCommand(command);
    if (reply.footer) showFooter(bridge, ctx, reply.footer);
    swallow(() => ctx.ui.notify(reply.text, reply.level));
  } catch {
    // A command never breaks the session.
  }
}

export function registerStatusCommand(bridge: Bridge): void {
  const description = "Gortex bridge status; `/gortex doctor` runs the full diagnosis";
  const handler = (args: string, ctx: Ctx) => gortexCommand(bridge, args, ctx);
  // Stryker disable next-line OptionalChaining: inside swallow(), a member that is missing throws and is swallowed to the same undefined
  swallow(() => bridge.pi.registerCommand?.("gortex", { description, handler }));
}
