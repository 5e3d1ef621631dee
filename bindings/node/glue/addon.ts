// The typed face of the core loader (glue/load.mjs, shared with the bin):
// PKG-4, issue 14. A load failure never throws: the extension degrades to
// "bridge unavailable" and the user is told why (glue/degraded.ts).
import type { Addon } from "./boundary.ts";
import { loadCore } from "./load.mjs";

export type LoadedAddon =
  | { addon: Addon; error?: undefined; tag: string }
  | { addon?: undefined; error: string; tag: string; supported: string[] };

export function loadAddon(): LoadedAddon {
  const loaded = loadCore();
  return "addon" in loaded ? { addon: loaded.addon as Addon, tag: loaded.tag } : loaded;
}
