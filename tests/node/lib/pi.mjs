//! pi.mjs - drives the pi-gortex extension through the REAL Pi loader and
//! runner (DefaultResourceLoader + ExtensionRunner) of the host chosen by
//! PI_HOST_DIR (default: tests/hosts/pi-1.6.0). The host actions Pi's agent
//! session would bind (sendMessage, tool activation, commands) are recorded
//! in plain arrays so tests can assert what the extension asked Pi to do.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
/** The extension package under test; a negative control may point it at a copy with a broken addon. */
export const PKG_DIR = process.env.PI_GORTEX_TEST_PKG_DIR ?? join(ROOT, "bindings/node");
export const HOST_DIR = resolve(process.env.PI_HOST_DIR ?? join(ROOT, "tests/hosts/pi-1.6.0"));
const PI_DIST = join(HOST_DIR, "node_modules/@earendil-works/pi-coding-agent");
export const PI_VERSION = JSON.parse(readFileSync(join(PI_DIST, "package.json"), "utf8")).version;
export const IS_NATIVE_HOST = !PI_VERSION.startsWith("0.");
export const pi = await import(pathToFileURL(join(PI_DIST, "dist/index.js")).href);

/** The native core's file name in PKG_DIR (`pi-gortex.<platform tag>.node`, from `make pack`). */
export const ADDON_FILE = readdirSync(PKG_DIR).find((name) => name.endsWith(".node"));

/** Copies what the package ships (its `files`) into `dest`, optionally without the core. */
export function copyPackage(dest, { withAddon = true } = {}) {
  mkdirSync(dest, { recursive: true });
  for (const entry of ["package.json", "index.ts", "glue", "types", "bin"].filter((entry) =>
    existsSync(join(PKG_DIR, entry)),
  ))
    cpSync(join(PKG_DIR, entry), join(dest, entry), { recursive: true });
  if (withAddon) cpSync(join(PKG_DIR, ADDON_FILE), join(dest, ADDON_FILE));
}

/** The fake gortex binary (helper "fake", `cargo build -p fake-gortex`). */
export const FAKE = process.env.FAKE_GORTEX_BIN ?? join(ROOT, "target/debug/fake-gortex");

/** The variables a test may set; all are cleared before each start. */
const OWNED_ENV = [
  "GORTEX_BIN",
  "GORTEX_HOOK_MODE",
  "GORTEX_ENFORCE",
  "GORTEX_TOOLS",
  "GORTEX_TOOLS_MODE",
  "GORTEX_NATIVE_MCP",
  "GORTEX_PROMPT_CONTEXT",
  "FAKE_GORTEX_SCENARIO",
  "FAKE_GORTEX_LOG",
  "FAKE_GORTEX_STATE",
  "FAKE_GORTEX_UPSTREAM_HOOK",
  "FAKE_GORTEX_HOOK_HOME",
  "GORTEX_DAEMON_SOCKET",
  "PI_CODING_AGENT_DIR",
];

/**
 * A fresh `<tmp>/{agent,work}` with an optional fake scenario (E2E-2). `trusted` is what
 * `ctx.isProjectTrusted()` answers (CFG-19): true by default, as real Pi answers for a folder
 * whose only `.pi` file is `gortex.json`; a test may change `ws.trusted` between sessions.
 */
export function workspace({ scenario, projectSidecar, globalSidecar, trusted = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "pi-gortex-node-"));
  const agentDir = join(dir, "agent");
  const cwd = join(dir, "work");
  mkdirSync(join(agentDir, "extensions"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const env = {
    PI_CODING_AGENT_DIR: agentDir,
    GORTEX_BIN: FAKE,
    FAKE_GORTEX_LOG: join(dir, "fake.log"),
    FAKE_GORTEX_STATE: dir,
  };
  if (scenario) {
    writeFileSync(join(dir, "scenario.json"), JSON.stringify(scenario));
    env.FAKE_GORTEX_SCENARIO = join(dir, "scenario.json");
  }
  if (projectSidecar) {
    mkdirSync(join(cwd, ".pi"), { recursive: true });
    writeFileSync(join(cwd, ".pi/gortex.json"), JSON.stringify(projectSidecar));
  }
  if (globalSidecar) writeFileSync(join(agentDir, "extensions/gortex.json"), JSON.stringify(globalSidecar));
  return { dir, agentDir, cwd, env, trusted, log: () => fakeLog(env.FAKE_GORTEX_LOG) };
}

/**
 * FAKE-3 records. A record crossing a page boundary may be half visible while the fake is still
 * appending it (buffered reads do not wait for the writer), so a last line without its newline is
 * not yet a record; every complete line must parse.
 */
export function fakeLog(path) {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  return text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** Sets the owned variables; a `null` value leaves that variable unset. */
function applyEnv(env) {
  for (const name of OWNED_ENV) delete process.env[name];
  for (const [name, value] of Object.entries(env)) {
    if (value === null) delete process.env[name];
    else process.env[name] = value;
  }
}

/**
 * Runs the loader (which calls the extension factory) in the session's
 * directory, because CFG-1 reads the process cwd at factory time, then puts
 * the process back where it was. Everything after the factory gets the cwd
 * from Pi (`ctx.cwd`). Leaving the process elsewhere would lose whatever a
 * runner writes relative to its cwd at exit (Stryker's coverage report).
 */
async function inCwd(cwd, run) {
  const before = process.cwd();
  process.chdir(cwd);
  try {
    return await run();
  } finally {
    process.chdir(before);
  }
}

/** Records of what the extension asked the host to do. */
class HostRecorder {
  constructor() {
    this.messages = [];
    this.notifications = [];
    /** The footer texts set under the key `gortex` (STAT-1), in order. */
    this.footers = [];
    this.inactive = new Set();
    this.setActiveCalls = [];
    this.getAllToolsCalls = 0;
    /** Errors Pi's runner caught from handlers (FAIL-4: must stay empty). */
    this.extensionErrors = [];
  }
}

/**
 * Loads the extension with a loader (a new loader reuses Pi's module cache,
 * like /new; `session.reload()` re-imports, like /reload) and binds a runner.
 * `extraFactories` are inline extensions loaded beside it (e.g. a connector
 * double that registers `/mcp`).
 */
/**
 * `actions` replaces host actions Pi binds (e.g. a `getAllTools` that throws,
 * FAIL-3); `notify` replaces the UI's notify.
 */
export async function start(
  ws,
  {
    env = {},
    pkgDir = PKG_DIR,
    extraPaths = [],
    extraFactories = [],
    ui = true,
    loader,
    sessionManager,
    actions = {},
    notify,
  } = {},
) {
  applyEnv({ ...ws.env, ...env });
  const host = new HostRecorder();
  loader ??= new pi.DefaultResourceLoader({
    cwd: ws.cwd,
    agentDir: ws.agentDir,
    additionalExtensionPaths: [...extraPaths, pkgDir],
    extensionFactories: extraFactories,
    noExtensions: true,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
  });
  await inCwd(ws.cwd, () => loader.reload());
  return bind(ws, loader, host, ui, sessionManager ?? pi.SessionManager.inMemory(ws.cwd), { actions, notify });
}

function bind(ws, loader, host, ui, sessionManager, { actions = {}, notify: notifyOverride } = {}) {
  const { extensions, runtime, errors } = loader.getExtensions();
  const modelRegistry = { registerProvider() {}, registerVirtualModel() {} };
  const runner = new pi.ExtensionRunner(extensions, runtime, ws.cwd, sessionManager, modelRegistry);
  const allNames = () => runner.getAllRegisteredTools().map((tool) => tool.definition.name);
  runner.bindCore(
    {
      sendMessage: (message, options) => host.messages.push({ message, options }),
      sendUserMessage: () => {},
      appendEntry: () => {},
      setSessionName: () => {},
      getSessionName: () => undefined,
      setLabel: () => {},
      getActiveTools: () => allNames().filter((name) => !host.inactive.has(name)),
      getAllTools: () =>
        (host.getAllToolsCalls++, runner.getAllRegisteredTools()).map((tool) => ({
          name: tool.definition.name,
          description: tool.definition.description,
          parameters: tool.definition.parameters,
        })),
      getSettings: () => ({}),
      setActiveTools: (names) => {
        host.setActiveCalls.push(names);
        const keep = new Set(names);
        host.inactive = new Set(allNames().filter((name) => !keep.has(name)));
      },
      refreshTools: () => {},
      getCommands: () =>
        runner
          .getRegisteredCommands()
          .map((command) => ({ name: command.name ?? command.invocationName, source: "extension" })),
      setModel: async () => true,
      getThinkingLevel: () => "off",
      setThinkingLevel: () => {},
      ...actions,
    },
    {
      getModel: () => undefined,
      getScopedModels: () => [],
      isIdle: () => true,
      isProjectTrusted: () => ws.trusted !== false,
      getSignal: () => undefined,
      abort: () => {},
      hasPendingMessages: () => false,
      shutdown: () => {},
      getContextUsage: () => undefined,
      compact: () => {},
      getSystemPrompt: () => "",
    },
  );
  runner.onError?.((error) => host.extensionErrors.push(error));
  if (ui) {
    const notify = notifyOverride ?? ((message, type) => host.notifications.push({ message, type }));
    const setStatus = (key, text) => key === "gortex" && host.footers.push(text);
    runner.setUIContext(uiContext(notify, setStatus), "tui");
  }
  return new Session(ws, loader, runner, sessionManager, host, errors);
}

function uiContext(notify, setStatus) {
  const noop = () => {};
  return new Proxy(
    {
      notify,
      setStatus,
      select: async () => undefined,
      confirm: async () => false,
      input: async () => undefined,
      editor: async () => undefined,
    },
    { get: (target, key) => (key in target ? target[key] : noop) },
  );
}

let callCounter = 0;

export class Session {
  constructor(ws, loader, runner, sessionManager, host, errors) {
    Object.assign(this, { ws, loader, runner, sessionManager, host, errors });
  }
  get ctx() {
    return this.runner.createContext();
  }
  sessionStart(reason = "startup") {
    return this.runner.emit({ type: "session_start", reason });
  }
  shutdown(reason = "quit") {
    return this.runner.emit({ type: "session_shutdown", reason });
  }
  compact() {
    return this.runner.emit({ type: "session_compact", compactionEntry: {}, fromExtension: false });
  }
  /** before_agent_start for a user prompt; returns the gortex messages. */
  async beforeAgentStart(prompt = "go") {
    const options = { cwd: this.ws.cwd };
    const result = IS_NATIVE_HOST
      ? await this.runner.emitBeforeAgentStart({ messageType: "user", prompt }, options)
      : await this.runner.emitBeforeAgentStart(prompt, undefined, options);
    const messages = result?.messages ?? [];
    for (const message of messages) {
      // Pi stores the returned message in the session (SES-14).
      this.sessionManager.appendCustomMessageEntry?.(
        message.customType,
        message.content,
        message.display,
        message.details,
      );
    }
    return messages;
  }
  toolCall(toolName, input, extra = {}) {
    const toolCallId = extra.toolCallId ?? `call_${++callCounter}`;
    return this.runner.emitToolCall({ type: "tool_call", toolCallId, toolName, input, ...extra });
  }
  toolResult(toolName, input, result, extra = {}) {
    return this.runner.emitToolResult({
      type: "tool_result",
      toolName,
      input,
      content: result.content ?? [],
      details: result.details,
      isError: Boolean(result.isError),
      ...extra,
    });
  }
  toolNames() {
    return this.runner.getAllRegisteredTools().map((tool) => tool.definition.name);
  }
  activeTools() {
    return this.toolNames().filter((name) => !this.host.inactive.has(name));
  }
  tool(name) {
    return this.runner.getToolDefinition(name);
  }
  /** Runs a registered tool's execute the way Pi does (with a tool context). */
  execute(name, params, { signal, toolCallId = `call_${++callCounter}` } = {}) {
    const ctx = this.runner.createToolContext
      ? this.runner.createToolContext(toolCallId, signal)
      : this.runner.createContext();
    return this.tool(name).execute(toolCallId, params, signal, () => {}, ctx);
  }
  /** A new instance against the cached module (what /new, resume and fork do). */
  async replace(reason = "new", { shutdownFirst = true, sessionManager } = {}) {
    if (shutdownFirst) await this.shutdown(reason);
    const loader = new pi.DefaultResourceLoader(loaderOptionsOf(this));
    const next = await start(this.ws, { loader, sessionManager });
    await next.sessionStart(reason);
    return next;
  }
  /** /reload: the same loader re-imports the module (a new import, a new Module). */
  async reload() {
    await this.shutdown("reload");
    await inCwd(this.ws.cwd, () => this.loader.reload());
    const next = bind(this.ws, this.loader, new HostRecorder(), true, pi.SessionManager.inMemory(this.ws.cwd));
    await next.sessionStart("reload");
    return next;
  }
  /** The gortex mcp children the fake logged as started. */
  mcpPids() {
    return [
      ...new Set(
        this.ws
          .log()
          .filter((r) => r.verb === "mcp" && r.ev === "start")
          .map((r) => r.pid),
      ),
    ];
  }
  /** Hook records of the fake's log. */
  hooks() {
    return this.ws.log().filter((r) => r.ev === "hook");
  }
}

function loaderOptionsOf(session) {
  return {
    cwd: session.ws.cwd,
    agentDir: session.ws.agentDir,
    additionalExtensionPaths: [PKG_DIR],
    noExtensions: true,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
  };
}

/** Resolves after `ms` (for bounded polling in tests, never for timing assertions). */
export const delay = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check()` is truthy or `ms` passes. */
export async function until(check, ms = 5000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await check();
    if (value) return value;
    await delay(20);
  }
  return check();
}

/** Whether a pid is alive. */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
