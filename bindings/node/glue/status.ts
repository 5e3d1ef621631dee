// What the user sees of the extension: the footer status
// (`setStatus("gortex", …)`), `/gortex` (the status block) and
// `/gortex doctor` (the doctor report, run in process). The core keeps the
// path the instance took, picks the command and words every answer and
// footer; the glue only supplies Pi's tool names and cwd and shows it.
import type { Ctx, Instance } from "./host.ts";
import { cwdOf, swallow, toolNames } from "./host.ts";

/** The core's footer, only with a UI; errors swallowed. */
export function showFooter(ctx: Ctx | undefined, footer: string): void {
  if (ctx?.hasUI) swallow(() => ctx.ui.setStatus("gortex", footer));
}

/** `/gortex` and `/gortex doctor`: the core picks the command and words the reply. */
async function gortexCommand(instance: Instance, args: string, ctx: Ctx): Promise<void> {
  const { pi, extension } = instance;
  try {
    const command = { args, cwd: cwdOf(pi, ctx), piTools: toolNames(pi) ?? [] };
    const reply = await extension.gortexCommand(command);
    if (reply.footer) showFooter(ctx, reply.footer);
    swallow(() => ctx.ui.notify(reply.text, reply.level));
  } catch {
    // A command never breaks the session.
  }
}

export function registerStatusCommand(instance: Instance): void {
  const description = "Gortex bridge status; `/gortex doctor` runs the full diagnosis";
  const handler = (args: string, ctx: Ctx) => gortexCommand(instance, args, ctx);
  swallow(() => instance.pi.registerCommand?.("gortex", { description, handler }));
}
