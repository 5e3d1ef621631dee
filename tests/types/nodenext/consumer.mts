// A consumer of the generated declarations under `moduleResolution: NodeNext` (Node's own ESM
// rules): the re-exports in `index.d.ts` must carry `.js` extensions for this to compile, and the
// namespaces must resolve to real types, not `any`.
import type { hook, mcp } from "../../../bindings/node/types/index.js";

export const decision: hook.HookDecision = { block: true, reason: "use search" };
export const id: mcp.RequestId = 7;
// @ts-expect-error: a real type, not `any`: a boolean is no request id.
export const wrong: mcp.RequestId = true;
