// The bridge's state for the user (STAT-1..3): the footer status
// (`setStatus("gortex", …)`), `/gortex` (the status block) and
// `/gortex doctor` (the doctor report, run in process). The core words both;
// the glue only supplies what it alone knows (the path in use, Pi's tools)
// and shows the answer.
import type { StatusView } from "../types/host.d.ts";
import type { Addon } from "./boundary.ts";
import type { Ctx, PiLike } from "./host.ts";
import { cwdOf, swallow } from "./host.ts";

export const STATUS_KEY = "gortex";

/** What the glue alone knows about the path (NAT-5, NAT-6). */
export interface PathFacts {
  native: boolean;
  /** Pi's name prefix of the native tools (`mcp__gortex__`). */
  toolPrefix?: string;
  refusal?: string;
  fallback?: string;
}

export class StatusReporter {
  private readonly pi: PiLike;
  private readonly addon: Addon;
  private readonly generation: number;
  private readonly instance: number;
  private readonly path: PathFacts;

  constructor(pi: PiLike, addon: Addon, generation: number, instance: number, path: PathFacts) {
    this.pi = pi;
    this.addon = addon;
    this.generation = generation;
    this.instance = instance;
    this.path = path;
  }

  view(): StatusView | undefined {
    const prefix = this.path.toolPrefix;
    const names = () => this.pi.getAllTools().map((tool) => (typeof tool === "string" ? tool : tool.name));
    const nativeTools =
      this.path.native && prefix ? (swallow(names) ?? []).filter((name) => name.startsWith(prefix)) : [];
    return swallow(() =>
      this.addon.gortexStatus(this.generation, this.instance, {
        native: this.path.native,
        nativeTools,
        ...(this.path.refusal ? { refusal: this.path.refusal } : {}),
        ...(this.path.fallback ? { fallback: this.path.fallback } : {}),
      }),
    );
  }

  /**
   * STAT-1: the footer, only with a UI; errors swallowed (FAIL-3). The view
   * is built only then: print and JSON runs have no footer, and their start
   * should not pay for one (issue 14).
   */
  footer(ctx: Ctx | undefined, view?: StatusView): void {
    if (!ctx?.hasUI) return;
    const shown = view ?? this.view();
    if (!shown) return;
    swallow(() => ctx.ui?.setStatus?.(STATUS_KEY, shown.footer));
  }

  /** `/gortex [doctor]`. */
  register(): void {
    if (typeof this.pi.registerCommand !== "function") return;
    swallow(() =>
      this.pi.registerCommand?.("gortex", {
        description: "Gortex bridge status; `/gortex doctor` runs the full diagnosis",
        handler: async (args: string, ctx: Ctx) => {
          try {
            if (args.trim() === "doctor") {
              const out = await this.addon.runCli(["pi-gortex", "doctor", "--cwd", cwdOf(this.pi, ctx)]);
              const text = `${out.stdout}${out.stderr}`.trimEnd();
              swallow(() => ctx.ui?.notify?.(text, out.exitCode === 0 ? "info" : "warning"));
              return;
            }
            const view = this.view();
            if (!view) return;
            this.footer(ctx, view);
            swallow(() => ctx.ui?.notify?.(view.text.trimEnd(), "info"));
          } catch {
            // FAIL-1: a command never breaks the session.
          }
        },
      }),
    );
  }
}
