// The glue's small helpers, called directly (Node 22 strips their types): what they read from
// Pi when a field is missing, of the wrong type or throws (PKG-2, FAIL-3, HOOK-9), the degraded
// extension of a package without its core (PKG-4, PKG-10), and the diff view's layout (REN-6).
// The ExtensionRunner suites drive the same code through Pi; Pi always fills these fields, so
// only here can a test see what the glue does when it does not. No Pi session is started:
// Stryker (`make mutants-ts`) runs this file first because it kills mutants in seconds.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

const glue = (file) => import(new URL(`../../bindings/node/glue/${file}`, import.meta.url).href);
const host = await glue("host.ts");
const { createDegraded } = await glue("degraded.ts");

const boom = () => {
  throw new Error("host member failed");
};

/** A Pi double that records handlers and notifications. */
function piDouble(extra = {}) {
  const handlers = new Map();
  return {
    handlers,
    on: (event, handler) => handlers.set(event, [...(handlers.get(event) ?? []), handler]),
    emit: (event, payload, ctx) => (handlers.get(event) ?? []).map((handler) => handler(payload, ctx)),
    ...extra,
  };
}

function uiCtx(extra = {}) {
  const shown = [];
  return { shown, hasUI: true, ui: { notify: (text, level) => shown.push({ text, level }) }, ...extra };
}

describe("host.ts: what the glue reads from Pi", () => {
  test("swallow returns the work's value, or undefined when it throws", () => {
    assert.equal(
      host.swallow(() => 7),
      7,
    );
    assert.equal(host.swallow(boom), undefined);
  });

  test("MCP-22: notifyAll shows each present text as a warning, only with a UI, past a throwing notify", () => {
    const ctx = uiCtx();
    host.notifyAll(ctx, ["one", null, "", undefined, "two"]);
    assert.deepEqual(ctx.shown, [
      { text: "one", level: "warning" },
      { text: "two", level: "warning" },
    ]);
    const headless = uiCtx({ hasUI: false });
    host.notifyAll(headless, ["one"]);
    assert.deepEqual(headless.shown, []);
    assert.doesNotThrow(() => host.notifyAll(undefined, ["no context"]));
    let calls = 0;
    const throwing = {
      hasUI: true,
      ui: {
        notify: () => {
          calls += 1;
          boom();
        },
      },
    };
    host.notifyAll(throwing, ["a", "b"]);
    assert.equal(calls, 2, "a throwing notify does not stop the next text");
  });

  test("textOf keeps strings only", () => {
    assert.equal(host.textOf("s"), "s");
    assert.equal(host.textOf(""), "");
    for (const value of [5, {}, null, undefined, ["s"]]) assert.equal(host.textOf(value), undefined);
  });

  test("HOOK-9: cwdOf is ctx.cwd, else pi.cwd, else the process cwd; a throwing pi.cwd is skipped", () => {
    assert.equal(host.cwdOf({ cwd: "/pi" }, { cwd: "/ctx" }), "/ctx");
    assert.equal(host.cwdOf({ cwd: "/pi" }, { cwd: 5 }), "/pi", "a non-string ctx.cwd does not count");
    assert.equal(host.cwdOf({ cwd: "/pi" }, undefined), "/pi");
    assert.equal(host.cwdOf({ cwd: "/pi" }, { cwd: "" }), "/pi", "an empty ctx.cwd does not count");
    const throwing = {
      get cwd() {
        return boom();
      },
    };
    assert.equal(host.cwdOf(throwing, {}), process.cwd());
    assert.equal(host.cwdOf({}, undefined), process.cwd());
  });

  test("HOOK-9: sessionIdOf prefers getSessionId(), else the field, else empty", () => {
    const both = { sessionManager: { getSessionId: () => "from-getter", sessionId: "from-field" } };
    assert.equal(host.sessionIdOf(both), "from-getter");
    assert.equal(host.sessionIdOf({ sessionManager: { getSessionId: () => "only-getter" } }), "only-getter");
    assert.equal(host.sessionIdOf({ sessionManager: { sessionId: "only-field" } }), "only-field");
    assert.equal(host.sessionIdOf({ sessionManager: { getSessionId: boom, sessionId: "x" } }), "");
    assert.equal(host.sessionIdOf({ sessionManager: { sessionId: 9 } }), "");
    assert.equal(host.sessionIdOf({}), "");
    assert.equal(host.sessionIdOf(undefined), "");
  });

  test("NAT-6/CFG-19: sessionBegin reads Pi's commands and a boolean trust answer only", () => {
    const pi = { getCommands: () => [{ name: "mcp" }, { name: "gortex" }] };
    assert.deepEqual(host.sessionBegin(pi, { isProjectTrusted: () => false }), {
      commands: ["mcp", "gortex"],
      projectTrusted: false,
    });
    assert.deepEqual(host.sessionBegin(pi, { isProjectTrusted: () => true }).projectTrusted, true);
    for (const ctx of [{}, undefined, { isProjectTrusted: boom }, { isProjectTrusted: () => "yes" }]) {
      assert.equal("projectTrusted" in host.sessionBegin(pi, ctx), false, JSON.stringify(ctx));
    }
    assert.deepEqual(host.sessionBegin({ getCommands: boom }, {}), { commands: undefined });
  });

  test("toolNames takes names from tool objects or strings; undefined when Pi throws", () => {
    assert.deepEqual(host.toolNames({ getAllTools: () => [{ name: "read" }, "mcp__gortex__search"] }), [
      "read",
      "mcp__gortex__search",
    ]);
    assert.equal(host.toolNames({ getAllTools: boom }), undefined);
  });

  test("SES-14: contextEntries projects type, customType and details; not an array is undefined", () => {
    const entries = [
      { type: "custom_message", customType: "gortex", details: { briefing: true }, content: "dropped" },
      { type: 3, customType: null },
      null,
    ];
    const ctx = { sessionManager: { buildContextEntries: () => entries } };
    assert.deepEqual(host.contextEntries(ctx), [
      { type: "custom_message", customType: "gortex", details: { briefing: true } },
      { type: undefined, customType: undefined, details: undefined },
      { type: undefined, customType: undefined, details: undefined },
    ]);
    assert.equal(host.contextEntries({ sessionManager: { buildContextEntries: () => ({}) } }), undefined);
    assert.equal(host.contextEntries({ sessionManager: { buildContextEntries: boom } }), undefined);
    assert.equal(host.contextEntries({}), undefined);
  });

  test("resultText joins the text parts with newlines and skips the rest", () => {
    const content = [
      { type: "text", text: "a" },
      { type: "image", data: "x", text: "an image's alt text is not result text" },
      { type: "text" },
      { type: "text", text: "b" },
    ];
    assert.equal(host.resultText({ content }), "a\nb");
    assert.equal(host.resultText({}), "");
  });
});

describe("degraded.ts: a package without its core (PKG-4, PKG-10)", () => {
  const failure = (supported) => ({
    error: "pi-gortex native core failed to load: nope",
    tag: "linux-x64-gnu",
    supported,
  });

  test("the first turn of each session is told once; the user once per load, at error level", () => {
    const pi = piDouble();
    createDegraded(pi, failure(["linux-x64-gnu", "darwin-arm64"]));
    const ctx = uiCtx();
    pi.emit("session_start", {}, ctx);
    const [first] = pi.emit("before_agent_start", {}, ctx);
    assert.deepEqual(first, {
      message: {
        customType: "gortex",
        content:
          "[Gortex] graph tools are unavailable this session (pi-gortex native core failed to load: nope). Tell the user to run /reload to retry the connection.",
        display: false,
        details: { briefing: false },
      },
    });
    assert.deepEqual(pi.emit("before_agent_start", {}, ctx), [undefined], "once per session");
    pi.emit("session_start", {}, ctx);
    assert.notEqual(pi.emit("before_agent_start", {}, ctx)[0], undefined, "again in the next session");
    assert.equal(ctx.shown.length, 1, "the user is told once per load");
    assert.equal(ctx.shown[0].level, "error");
    assert.equal(
      ctx.shown[0].text,
      [
        "pi-gortex: pi-gortex native core failed to load: nope.",
        "Platform linux-x64-gnu; prebuilt cores exist for linux-x64-gnu, darwin-arm64.",
        "Reinstall pi-gortex with optional dependencies enabled (npm installs the core as pi-gortex-linux-x64-gnu; --omit=optional or --no-optional skips it), or build it from a checkout with `make pack`.",
        "Until then Gortex graph tools and read discipline (the hook on every tool call) are off.",
      ].join("\n"),
    );
  });

  test("SES-3: a turn before any session_start is told too", () => {
    const pi = piDouble();
    createDegraded(pi, failure(["linux-x64-gnu"]));
    assert.match(pi.emit("before_agent_start", {}, uiCtx())[0].message.content, /graph tools are unavailable/);
  });

  test("an unsupported platform, or an unreadable manifest, is named as such", () => {
    const unsupported = piDouble();
    createDegraded(unsupported, failure(["darwin-arm64"]));
    const ctx = uiCtx();
    unsupported.emit("session_start", {}, ctx);
    assert.match(
      ctx.shown[0].text,
      /\nThere is no prebuilt core for linux-x64-gnu; build one from a checkout with `make pack`, or use a supported platform\.\n/,
    );
    const unreadable = piDouble();
    createDegraded(unreadable, failure([]));
    const ctx2 = uiCtx();
    unreadable.emit("session_start", {}, ctx2);
    assert.match(
      ctx2.shown[0].text,
      /^Platform linux-x64-gnu; prebuilt cores exist for no platform \(the package manifest is unreadable\)\.$/m,
    );
  });

  test("without a UI nobody is notified, and the first session with a UI still is", () => {
    const pi = piDouble();
    createDegraded(pi, failure(["linux-x64-gnu"]));
    const headless = uiCtx({ hasUI: false });
    pi.emit("session_start", {}, headless);
    pi.emit("session_start", {}, undefined);
    assert.deepEqual(headless.shown, []);
    const ctx = uiCtx();
    pi.emit("session_start", {}, ctx);
    assert.equal(ctx.shown.length, 1);
    const throwing = piDouble();
    createDegraded(throwing, failure(["linux-x64-gnu"]));
    assert.doesNotThrow(() => throwing.emit("session_start", {}, { hasUI: true, ui: { notify: boom } }));
  });
});

describe("render.ts: the diff view (REN-5, REN-6)", async () => {
  const { nativeRendererResolver, renderCall, renderResult } = await glue("render.ts");
  // The same Pi the glue resolves (bindings/node's dependency); its diff colours need a theme.
  const piPackage = "../../bindings/node/node_modules/@earendil-works/pi-coding-agent/dist/index.js";
  (await import(new URL(piPackage, import.meta.url).href)).initTheme();
  const theme = { fg: (color, text) => `<${color}>${text}`, bold: (text) => `*${text}*` };
  // Rows as the user reads them: Pi's diff colours stripped.
  const rows = (component) => component.render(120).map((row) => row.replace(/\x1b\[[0-9;]*m/g, "").trimEnd());
  const diff = "-1 one\n+1 two";

  test("one diff draws no path header; two draw each path above its diff", () => {
    const one = rows(renderResult({ details: { diffs: [{ path: "a.ts", diff }] } }, { expanded: false }, theme, {}));
    assert.equal(one.filter((row) => row.includes("<accent>a.ts")).length, 0, JSON.stringify(one));
    assert.ok(
      one.some((row) => row.includes("two")),
      JSON.stringify(one),
    );
    const two = rows(
      renderResult(
        {
          details: {
            diffs: [
              { path: "a.ts", diff },
              { path: "b.ts", diff },
            ],
          },
        },
        { expanded: false },
        theme,
        {},
      ),
    );
    assert.deepEqual(
      two.filter((row) => row.includes("<accent>")),
      ["<accent>a.ts", "<accent>b.ts"],
    );
  });

  test("a note entry without a path draws an empty path and the note", () => {
    const view = rows(renderResult({ details: { diffs: [{ note: "not diffed" }] } }, { expanded: false }, theme, {}));
    assert.ok(view.includes("<accent> <muted>not diffed"), JSON.stringify(view));
  });

  test("an entry without diff text draws nothing for it; an error result draws no diff view", () => {
    const empty = rows(renderResult({ details: { diffs: [{ path: "a.ts" }] } }, { expanded: false }, theme, {}));
    assert.equal(empty.join("").includes("undefined"), false, JSON.stringify(empty));
    const failed = renderResult(
      { details: { diffs: [{ path: "a.ts", diff }] }, content: [{ type: "text", text: "boom" }] },
      { expanded: true },
      theme,
      { isError: true },
    );
    assert.deepEqual(rows(failed), ["boom"]);
  });

  test("one diff starts with a blank row; an entry without diff text draws only that row", () => {
    const one = rows(renderResult({ details: { diffs: [{ path: "a.ts", diff }] } }, { expanded: false }, theme, {}));
    assert.equal(one[0], "", "REN-6: a spacer above each diff");
    const blank = rows(renderResult({ details: { diffs: [{ path: "a.ts" }] } }, { expanded: false }, theme, {}));
    assert.deepEqual(
      blank.filter((row) => row !== ""),
      [],
      JSON.stringify(blank),
    );
  });

  test("a result without details, context or theme draws what is below, never throws", () => {
    assert.deepEqual(rows(renderResult({ content: [{ type: "text", text: "t" }] }, { expanded: true }, theme)), ["t"]);
    assert.deepEqual(rows(renderResult({}, { expanded: false }, theme)), []);
    const withDiff = { details: { diffs: [{ path: "a.ts", diff }] }, content: [{ type: "text", text: "t" }] };
    assert.deepEqual(rows(renderResult(withDiff, { expanded: true }, undefined, {})), ["t"], "no theme: no diff view");
  });

  test("REN-7: the native resolver wraps only prefixed tools with a renderResult, and passes Pi's context on", () => {
    const seen = [];
    const base = {
      renderCall: () => "call",
      renderResult: (_result, _options, _theme, context) => {
        seen.push(context);
        return { render: () => ["BASE"], invalidate() {} };
      },
    };
    const resolve = nativeRendererResolver("mcp__gortex__");
    assert.equal(
      resolve("mcp__docs__read", () => base),
      base,
    );
    const bare = { renderCall: () => "call" };
    assert.equal(
      resolve("mcp__gortex__search", () => bare),
      bare,
    );
    assert.equal(
      resolve("mcp__gortex__search", () => {
        throw new Error("no base renderer");
      }),
      undefined,
    );
    const wrapped = resolve("mcp__gortex__edit", () => base);
    const context = { isError: false, toolCallId: "c", lastComponent: { stale: true } };
    assert.deepEqual(rows(wrapped.renderResult({ details: {} }, { expanded: true }, theme, context)), ["BASE"]);
    assert.deepEqual(seen, [{ isError: false, toolCallId: "c", lastComponent: undefined }]);
    assert.deepEqual(rows(wrapped.renderResult({ details: {} }, { expanded: false }, theme)), [], "no context");
    assert.deepEqual(rows(wrapped.renderResult({ details: {} }, { expanded: false }, theme, { isError: true })), [
      "BASE",
    ]);
  });

  test("REN-1..4: the call line is the label and the core's rest, collapsed to one row or expanded; a read delegates", () => {
    const lines = { search: { rest: "query" }, bare: {}, read: { read: { path: "src/a.ts" } } };
    const addon = { callLine: (daemonName) => lines[daemonName] };
    const call = (daemonName, context) => renderCall(addon, daemonName, daemonName, "/w")({}, theme, context);
    assert.deepEqual(rows(call("search")), ["*search* query"], "no context: collapsed");
    assert.deepEqual(rows(call("bare", { expanded: true })), ["*bare*"]);
    const long = { callLine: () => ({ rest: "x".repeat(300) }) };
    assert.equal(renderCall(long, "l", "l", "/w")({}, theme, {}).render(40).length, 1, "collapsed is one row");
    assert.ok(renderCall(long, "l", "l", "/w")({}, theme, { expanded: true }).render(40).length > 1, "expanded wraps");
    const [first] = rows(call("read", {}));
    assert.ok(first.startsWith("<dim>gortex "), first);
  });
});
