/**
 * rpc-helpers.ts - test-only Pi extension for the RPC-driven e2e tests (lib/rpc_steps.mjs),
 * loaded next to (never inside) the extension under test with `-e`:
 * - `/e2e-reload` calls `ctx.reload()`, what the interactive `/reload` does, because Pi's RPC
 *   mode has no reload command of its own;
 * - `/e2e-panic` loads the pi-gortex addon named by env `PI_E2E_GORTEX_ADDON` (the same file the
 *   extension loaded, so the same module instance) and calls its test-only `debugForcePanic`
 *   export on both guards: a panic inside a runtime call (FAIL-4).
 */
import { createRequire } from "node:module";

type Command = { description: string; handler: (args: string, ctx: { reload: () => Promise<void> }) => Promise<void> };

export default function (pi: { registerCommand: (name: string, options: Command) => void }): void {
  pi.registerCommand("e2e-reload", {
    description: "reload extensions (e2e)",
    handler: async (_args, ctx) => {
      await ctx.reload();
    },
  });
  pi.registerCommand("e2e-panic", {
    description: "force a panic inside the pi-gortex core (e2e)",
    handler: async () => {
      const path = process.env.PI_E2E_GORTEX_ADDON;
      if (!path) return;
      const addon = createRequire(path)(path) as { debugForcePanic: (asynchronous: boolean) => Promise<boolean> };
      await addon.debugForcePanic(true);
      await addon.debugForcePanic(false);
    },
  });
}
