// Tool renderers. The call line's pieces come from the core;
// this file only styles them and delegates to Pi's own components.
import { createReadToolDefinition, renderDiff } from "@earendil-works/pi-coding-agent";
import { Container, Spacer, Text, truncateToWidth } from "@earendil-works/pi-tui";

import type { Addon } from "./boundary.ts";
import type { RenderResult, Theme, ToolEventLike } from "./host.ts";
import { resultText, swallow } from "./host.ts";

type Component = { render(width: number): readonly string[]; invalidate(): void };
type ReadDefinition = { renderCall?: (args: unknown, theme: Theme, context?: unknown) => unknown };

/** A component that cuts a single styled row to the terminal width. */
const oneRow = (text: string): Component => ({ render: (width) => [truncateToWidth(text, width)], invalidate() {} });

/** The call line of a tool registered as `label`. */
export function renderCall(addon: Addon, label: string, daemonName: string, cwd: string) {
  return (args: unknown, theme: Theme, context?: unknown): unknown => {
    const expanded = Boolean((context as { expanded?: boolean } | undefined)?.expanded);
    const { read, rest } = addon.callLine(daemonName, args ?? {}, expanded);
    const readCall = () => (createReadToolDefinition(cwd) as ReadDefinition).renderCall?.(read, theme, context);
    const delegated = read ? swallow(readCall) : undefined;
    if (delegated) return prefixed(theme.fg("dim", "gortex "), delegated as Component);
    const text = rest ? `${theme.bold(label)} ${rest}` : theme.bold(label);
    return expanded ? new Text(text, 0, 0) : oneRow(text);
  };
}

/** Prefixes the first row of Pi's read call component. */
function prefixed(prefix: string, inner: Component): Component {
  return {
    render(width) {
      const [first = "", ...rest] = inner.render(Math.max(1, width - 7));
      return [truncateToWidth(prefix + first, width), ...rest];
    },
    invalidate: () => inner.invalidate(),
  };
}

/** The diff view, or undefined when there is nothing to draw. */
function diffView(result: ToolEventLike, theme: Theme | undefined, isError: boolean): Container | undefined {
  const details = result.details as { diffs?: unknown } | undefined;
  const diffs = Array.isArray(details?.diffs)
    ? (details.diffs as { path?: string; diff?: string; note?: string }[])
    : [];
  if (!theme || isError) return undefined;
  const container = new Container();
  for (const entry of diffs) {
    container.addChild(new Spacer(1));
    const path = entry.path ?? "";
    if (entry.note) {
      container.addChild(new Text(`${theme.fg("accent", path)} ${theme.fg("muted", entry.note)}`, 0, 0));
      continue;
    }
    if (diffs.length > 1) container.addChild(new Text(theme.fg("accent", path), 0, 0));
    container.addChild(new Text(renderDiff(entry.diff ?? "", { filePath: path }), 0, 0));
  }
  return container;
}

/** The diff view with what the tool shows below it, or that alone. */
function withDiffs(result: ToolEventLike, theme: Theme, isError: boolean, below: unknown): unknown {
  const view = diffView(result, theme, isError);
  if (!view) return below ?? new Text("", 0, 0);
  if (below) view.addChild(below as never);
  return view;
}

/** Own-client results: the text when expanded. */
export const renderResult: RenderResult = (result, options, theme, context) => {
  const text = options.expanded ? resultText(result) : "";
  return withDiffs(result, theme, Boolean(context?.isError), text ? new Text(text, 0, 0) : undefined);
};

/** The native renderer resolver: Pi's own result below the diffs. */
export function nativeRendererResolver(prefix: string) {
  return (toolName: string, next: () => unknown): unknown => {
    const base = swallow(() => next()) as { renderResult?: RenderResult } | undefined;
    const baseResult = base?.renderResult;
    if (!toolName.startsWith(prefix) || typeof baseResult !== "function") return base;
    const renderResult: RenderResult = (result, options, theme, context) => {
      const isError = Boolean(context?.isError);
      const below =
        options.expanded || isError
          ? baseResult(result, options, theme, { ...context, lastComponent: undefined })
          : undefined;
      return withDiffs(result, theme, isError, below);
    };
    return { ...base, renderResult };
  };
}
