// pi-gortex: Gortex code intelligence for Pi. The entry module Pi loads
// (pi.extensions). All decisions live in the Rust core; the glue in ./glue
// only turns Pi events into core calls and core answers into Pi calls.
import { loadAddon } from "./glue/boundary.ts";
import { createDegraded } from "./glue/degraded.ts";
import type { PiLike } from "./glue/host.ts";
import { createInstance } from "./glue/instance.ts";

const loaded = loadAddon();
// One generation per import of this module; /reload re-imports it.
const generation = loaded.addon ? loaded.addon.createGeneration() : 0;

/** The Pi extension factory. It never throws (PKG-2). */
export default async function piGortex(pi: PiLike): Promise<void> {
  if (!loaded.addon) {
    createDegraded(pi, loaded);
    return;
  }
  try {
    await createInstance(pi, loaded.addon, generation);
  } catch {
    // A throwing factory would discard every registration.
  }
}
