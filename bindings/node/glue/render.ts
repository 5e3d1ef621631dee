// Tool renderers (REN-1..7). The call line's pieces come from the core;
// this file only styles them and delegates to Pi's own components.
import { createReadToolDefinition, renderDiff } from "@earendil-works/pi-coding-agent";
import { Container, Spacer, Text, truncateToWidth } from "@earendil-works/pi-tui";

import type { Addon } from "./boundary.ts";
import type { Theme, ToolResultLike } from "./host.ts";
import { resultText, swallow } from "./host.ts";

interface FileDiffLike {
  path?: string;
  diff?: string;
  note?: string;
}

/** A component that cuts a single styled row to the terminal width (REN-3). */
class OneRow {
  private readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  render(width: number): string[] {
    return [truncateToWidth(this.text, width)];
  }
  invalidate(): void {}
}

/** REN-1..4: the call line of a tool registered as `label`. */
export function renderCall(addon: Addon, label: string, daemonName: string, cwd: string) {
  return (args: unknown, theme: Theme, context?: unknown): unknown => {
    const expanded = Boolean((context as { expanded?: boolean } | undefined)?.expanded);
    const line = addon.callLine(daemonName, args ?? {}, expanded);
    const read = line.read;
    if (read) {
      const definition = swallow(
        () => createReadToolDefinition(cwd) as { renderCall?: (a: unknown, t: Theme, c?: unknown) => unknown },
      );
      const delegated = swallow(() => definition?.renderCall?.(read, theme, context));
      if (delegated) return prefixed(theme.fg("dim", "gortex "), delegated);
    }
    const text = line.rest ? `${theme.bold(label)} ${line.rest}` : theme.bold(label);
    return expanded ? new Text(text, 0, 0) : new OneRow(text);
  };
}

/** Prefixes the first row of Pi's read call component (REN-4). */
function prefixed(prefix: string, inner: unknown): unknown {
  const component = inner as { render(width: number): string[]; invalidate?(): void };
  return {
    render(width: number): string[] {
      const rows = component.render(Math.max(1, width - 7));
      if (rows.length === 0) return [prefix];
      return [truncateToWidth(prefix + rows[0], width), ...rows.slice(1)];
    },
    invalidate(): void {
      component.invalidate?.();
    },
  };
}

function diffsOf(result: ToolResultLike): FileDiffLike[] {
  const details = result.details as { diffs?: unknown } | undefined;
  return Array.isArray(details?.diffs) ? (details.diffs as FileDiffLike[]) : [];
}

/** REN-6: the diff view, or undefined when there is nothing to draw. */
function diffView(result: ToolResultLike, theme: Theme | undefined, isError: boolean): Container | undefined {
  const diffs = diffsOf(result);
  if (diffs.length === 0 || !theme || isError) return undefined;
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

/** REN-5/6: own-client results. */
export function renderResult() {
  return (
    result: ToolResultLike,
    options: { expanded?: boolean; isPartial?: boolean },
    theme: Theme,
    context?: { isError?: boolean },
  ): unknown => {
    const view = diffView(result, theme, Boolean(context?.isError));
    const text = options.expanded ? resultText(result) : "";
    if (!view) return new Text(text, 0, 0);
    if (text) view.addChild(new Text(text, 0, 0));
    return view;
  };
}

interface BaseRenderer {
  renderCall?: unknown;
  renderResult?: (
    result: ToolResultLike,
    options: { expanded?: boolean },
    theme: Theme,
    context?: Record<string, unknown>,
  ) => unknown;
}

/** REN-7: the native renderer resolver. */
export function nativeRendererResolver(prefix: string) {
  return (toolName: string, next: () => unknown): unknown => {
    const base = swallow(() => next()) as BaseRenderer | undefined;
    if (!toolName.startsWith(prefix) || !base || typeof base.renderResult !== "function") return base;
    const baseResult = base.renderResult;
    return {
      ...base,
      renderResult(
        result: ToolResultLike,
        options: { expanded?: boolean },
        theme: Theme,
        context?: Record<string, unknown>,
      ) {
        const isError = Boolean(context?.isError);
        const view = diffView(result, theme, isError);
        const showBase = Boolean(options.expanded) || isError;
        const below = showBase
          ? baseResult(result, options, theme, { ...context, lastComponent: undefined })
          : undefined;
        if (!view) return below ?? new Text("", 0, 0);
        if (below) view.addChild(below as never);
        return view;
      },
    };
  };
}
