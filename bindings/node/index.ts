// pi-gortex: Gortex code intelligence for Pi. The entry module Pi loads
// (pi.extensions). All decisions live in the Rust core; the glue in ./glue
// only turns Pi events into core calls and core answers into Pi calls.
import { loadAddon } from "./glue/boundary.ts";
import { createDegraded } from "./glue/degraded.ts";
import type { PiLike } from "./glue/host.ts";
import { swallow } from "./glue/host.ts";
import { createInstance } from "./glue/instance.ts";

const loaded = loadAddon();
// The state this import's instances share; /reload re-imports the module and starts afresh.
const { addon } = loaded;
const shared = addon ? swallow(() => new addon.Module()) : undefined;

/** The Pi extension factory. It never throws. */
export default async function piGortex(pi: PiLike): Promise<void> {
  if (!loaded.addon) {
    createDegraded(pi, loaded);
    return;
  }
  try {
    if (shared) await createInstance(pi, loaded.addon, shared);
  } catch {
    // A throwing factory would discard every registration.
  }
}
