// The addon's API as the glue calls it. The object shapes are those of
// schema/host.schema.json (HostConfig, ToolCallAction, ...), re-exported from
// the generated types; only the function signatures are declared here.
export type {
  CallLine,
  CatalogueUpdate,
  FirstTurnResult,
  HiddenMessage,
  HostConfig,
  LaterTurnResult,
  OwnStartResult,
  PathChoice,
  ToolCallAction,
  ToolExecuteResult,
  ToolRegistration,
  WatchResultAction,
} from "../types/host.d.ts";
import type {
  CallLine,
  CatalogueUpdate,
  FirstTurnRequest,
  FirstTurnResult,
  HostConfig,
  LaterTurnRequest,
  LaterTurnResult,
  OwnStartResult,
  PathChoice,
  PathRequest,
  ToolCallAction,
  ToolCallEvent,
  ToolExecuteRequest,
  ToolExecuteResult,
  WatchResultAction,
  WatchToolResult,
} from "../types/host.d.ts";

export interface Addon {
  createGeneration(): number;
  createInstance(): number;
  takePanics(): string[];
  debugForcePanic(asynchronous: boolean): Promise<boolean>;
  resolveConfig(generation: number, instance: number, cwd: string): Promise<HostConfig>;
  trustProject(generation: number, instance: number, trusted: boolean): HostConfig;
  choosePath(generation: number, instance: number, request: PathRequest): PathChoice;
  refusalNotice(reason: string): string;
  nativeToolsPresent(names: string[]): boolean;
  beginSession(generation: number): void;
  enforceToolCall(generation: number, instance: number, event: ToolCallEvent): Promise<ToolCallAction>;
  firstTurn(generation: number, instance: number, request: FirstTurnRequest): Promise<FirstTurnResult>;
  laterTurn(generation: number, instance: number, request: LaterTurnRequest): Promise<LaterTurnResult>;
  briefingInContext(entries: unknown): boolean;
  startOwnClient(
    generation: number,
    instance: number,
    onCatalogue: (update: CatalogueUpdate) => void,
  ): Promise<OwnStartResult>;
  stopOwnClient(generation: number, instance: number): Promise<void>;
  executeTool(generation: number, request: ToolExecuteRequest): Promise<ToolExecuteResult>;
  abortCall(generation: number, callId: string): void;
  editCandidates(generation: number, name: string, args: unknown, cwd: string): string[];
  callLine(daemonName: string, args: unknown, expanded: boolean): CallLine;
  watchToolCall(generation: number, event: ToolCallEvent): boolean;
  watchSnapshot(generation: number, event: ToolCallEvent): Promise<void>;
  watchToolResult(generation: number, event: WatchToolResult): Promise<WatchResultAction>;
  watchToolEnd(generation: number, toolCallId: string): void;
  watchReset(generation: number): void;
}
