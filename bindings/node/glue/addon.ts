// Loads the native core relative to this package (PKG-4). A load failure
// never throws: the extension degrades to "bridge unavailable".
import { createRequire } from "node:module";

import type { Addon } from "./boundary.ts";

export type LoadedAddon = { addon: Addon; error?: undefined } | { addon?: undefined; error: string };

/** The napi platform suffix of this process, e.g. `linux-x64-gnu`. */
function platformTag(): string {
  const { platform, arch } = process;
  if (platform === "linux") {
    const report = process.report?.getReport?.() as { header?: { glibcVersionRuntime?: string } } | undefined;
    return `linux-${arch}-${report?.header?.glibcVersionRuntime ? "gnu" : "musl"}`;
  }
  if (platform === "win32") return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

export function loadAddon(): LoadedAddon {
  const require = createRequire(import.meta.url);
  const tag = platformTag();
  // Next to index.ts first (the package as built), then the per-platform
  // npm package napi's targets declare.
  const candidates = [`../pi-gortex.${tag}.node`, `pi-gortex-${tag}`];
  let firstError = "";
  for (const candidate of candidates) {
    try {
      return { addon: require(candidate) as Addon };
    } catch (error) {
      if (!firstError) firstError = error instanceof Error ? error.message.split("\n")[0] ?? "" : String(error);
    }
  }
  return { error: `pi-gortex native core failed to load: ${firstError}` };
}
