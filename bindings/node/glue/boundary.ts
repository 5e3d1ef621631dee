// The addon's API as the glue calls it: the declarations napi generates from
// bindings/node/src (addon.d.ts), whose object shapes are the generated types
// of schema/host.schema.json. Nothing here is declared by hand.
import type * as Native from "../addon.d.ts";

export type Addon = typeof Native;
export type {
  CatalogueUpdate,
  ContextEntry,
  PathChoice,
  ToolCallEvent,
  ToolExecuteResult,
  ToolRegistration,
  ToolWait,
} from "../types/host.d.ts";
