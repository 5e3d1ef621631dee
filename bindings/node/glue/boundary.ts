// The addon's API as the glue calls it: the declarations napi generates from
// bindings/node/src (addon.d.ts), whose object shapes are the generated types
// of schema/host.schema.json. Nothing here is declared by hand. Loading goes
// through glue/load.mjs (shared with the bin): a failure never throws, the
// extension degrades to "graph tools unavailable" and tells the user.
import type * as Native from "../addon.d.ts";
import { loadCore } from "./load.mjs";

export type Addon = typeof Native;
/** One factory call's core object: one method per Pi event. */
export type Extension = Native.Extension;
/** The state one import of the entry module shares between its instances. */
export type Module = Native.Module;
export type {
  CatalogueUpdate,
  ContextEntry,
  PathChoice,
  SessionAction,
  SessionBegin,
  ToolCallEvent,
  ToolRegistration,
} from "../types/host.d.ts";

export type LoadedAddon =
  | { addon: Addon; error?: undefined; tag: string }
  | { addon?: undefined; error: string; tag: string; supported: string[] };

export function loadAddon(): LoadedAddon {
  return loadCore() as LoadedAddon;
}
