// The bridge's state for the user (STAT-1..3): the footer status
// (`setStatus("gortex", …)`), `/gortex` (the status block) and
// `/gortex doctor` (the doctor report, run in process). The core keeps the
// path the instance took and words both; the glue only supplies Pi's tool
// names and shows the answer.
import type { StatusView } from "../types/host.d.ts";
import type { Bridge, Ctx } from "./host.ts";
import { cwdOf, notifyAll, swallow, toolNames } from "./host.ts";

function statusView({ pi, addon, generation, instance }: Bridge): StatusView | undefined {
  return swallow(() => addon.gortexStatus(generation, instance, { piTools: toolNames(pi) ?? [] }));
}

/** STAT-1: the footer, only with a UI; errors swallowed (FAIL-3). */
export function showFooter(bridge: Bridge, ctx: Ctx | undefined, view?: StatusView): void {
  if (!ctx?.hasUI) return;
  const shown = view ?? statusView(bridge);
  if (shown) swallow(() => ctx.ui?.setStatus?.("gortex", shown.footer));
}

/** After a session start or a first turn: FAIL-4's panic warning, then the footer. */
export function afterStep(bridge: Bridge, ctx: Ctx | undefined): void {
  const { addon, generation, instance } = bridge;
  notifyAll(ctx, [swallow(() => addon.panicNotice(generation, instance))]);
  showFooter(bridge, ctx);
}

/** STAT-2/3: `/gortex` shows the status block, `/gortex doctor` the doctor report. */
async function gortexCommand(bridge: Bridge, args: string, ctx: Ctx): Promise<void> {
  try {
    if (args.trim() === "doctor") {
      const out = await bridge.addon.runCli(["pi-gortex", "doctor", "--cwd", cwdOf(bridge.pi, ctx)]);
      const text = `${out.stdout}${out.stderr}`.trimEnd();
      swallow(() => ctx.ui?.notify?.(text, out.exitCode === 0 ? "info" : "warning"));
      return;
    }
    const view = statusView(bridge);
    if (!view) return;
    showFooter(bridge, ctx, view);
    swallow(() => ctx.ui?.notify?.(view.text.trimEnd(), "info"));
  } catch {
    // FAIL-1: a command never breaks the session.
  }
}

export function registerStatusCommand(bridge: Bridge): void {
  const description = "Gortex bridge status; `/gortex doctor` runs the full diagnosis";
  const handler = (args: string, ctx: Ctx) => gortexCommand(bridge, args, ctx);
  swallow(() => bridge.pi.registerCommand?.("gortex", { description, handler }));
}
