//! lifecycle_leaks.test.mjs - issue 8 "leaks across lifecycles": scripted prompt, `new_session`,
//! resume (`switch_session` back to the first session file), `/reload` and quit over Pi's RPC
//! mode. After
//! each step the number of live `gortex mcp` children fake-gortex logged must be what the spec
//! expects: exactly one on the own client (SES-16 stops the old session's child, SES-7 starts the
//! new one, which must differ from the old), exactly one on the native path too (Pi owns that
//! child, NAT-7, and keeps a single connection), and none after quit (MCP-15, SES-17:
//! assertClean). Pi's RPC mode has no reload command, so `/reload` is driven through a test-only
//! extension command that calls `ctx.reload()` (reload-command.ts); on the own client the child
//! after it must be a new process.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { NODE22, REPO } from "./lib/hosts.mjs";
import { assertClean } from "./lib/gortex.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { collect, KILL_AFTER_MS, parseJsonl, piArgs, runEnv, sandbox } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

/** Test-only extension giving RPC mode a `/e2e-reload` command (`ctx.reload()`). */
const RELOAD_COMMAND = join(REPO, "tests/e2e/reload-command.ts");

/** An `mcp` process the fake logged and that is still running (a zombie counts as gone). */
function liveMcpChildren(box) {
	let records = [];
	try {
		records = parseJsonl(readFileSync(box.fakeLog, "utf8"));
	} catch {
		return [];
	}
	const pids = new Set(records.filter((r) => r.ev === "start" && r.verb === "mcp").map((r) => r.pid));
	return [...pids].filter((pid) => {
		try {
			const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
			return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
		} catch {
			return false;
		}
	});
}

/** Polls until `check(live)` holds (a stopped child gets its 2 s kill grace), returns the last count. */
async function settleCount(box, check, ms = 6000) {
	const deadline = Date.now() + ms;
	let live = liveMcpChildren(box);
	while (!check(live.length) && Date.now() < deadline) {
		await new Promise((r) => setTimeout(r, 100));
		live = liveMcpChildren(box);
	}
	return live;
}

/** A Pi RPC session driven one command at a time. */
function startRpc(box, script) {
	const args = ["-e", RELOAD_COMMAND];
	const child = spawn(NODE22, [...piArgs(box, { args, session: true }), "--mode", "rpc"], {
		cwd: box.work,
		env: runEnv(box, { script }),
		stdio: ["pipe", "pipe", "pipe"],
	});
	const err = [];
	let stdout = "";
	let pending = Buffer.alloc(0);
	let waiter = null;
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		child.kill("SIGKILL");
	}, KILL_AFTER_MS);
	child.stdout.on("data", (chunk) => {
		stdout += chunk.toString("utf8");
		pending = Buffer.concat([pending, chunk]);
		let nl = pending.indexOf(0x0a);
		while (nl !== -1) {
			const line = pending.subarray(0, nl).toString("utf8").replace(/\r$/, "");
			pending = pending.subarray(nl + 1);
			nl = pending.indexOf(0x0a);
			let message;
			try {
				message = JSON.parse(line);
			} catch {
				continue;
			}
			if (message.type === "extension_ui_request" && ["select", "confirm", "input", "editor"].includes(message.method)) {
				child.stdin.write(`${JSON.stringify({ type: "extension_ui_response", id: message.id, cancelled: true })}\n`);
			}
			if (waiter?.(message)) waiter = null;
		}
	});
	child.stderr.on("data", (c) => err.push(c));
	const closed = new Promise((resolve) =>
		child.on("close", (status, signal) => {
			clearTimeout(timer);
			resolve({ pid: child.pid, status, signal, timedOut, stdout, stderr: Buffer.concat(err).toString("utf8") });
		}),
	);
	let n = 0;
	return {
		/** Sends a command; resolves with its response (a prompt: once the agent settled, unless
		 * `settle` is false, as for a slash command that starts no turn). */
		send(command, { settle = command.type === "prompt" } = {}) {
			const id = `c${++n}`;
			const settled = settle;
			const done = new Promise((resolve) => {
				let response;
				waiter = (m) => {
					if (m.type === "response" && m.id === id) {
						response = m;
						if (!settled || m.success === false) return resolve(m), true;
					}
					if (settled && m.type === "agent_settled") return resolve(response), true;
					return false;
				};
			});
			child.stdin.write(`${JSON.stringify({ id, ...command })}\n`);
			return done;
		},
		async quit() {
			child.stdin.end();
			return collect(box, await closed);
		},
	};
}

describe("leaks across lifecycles (issue 8)", { concurrency: CONCURRENCY }, () => {
	scenario("prompt, /new, resume, /reload, quit: live gortex mcp children are 1, 1, 1, 1, then 0", {}, async ({ pi, path }) => {
		const box = sandbox({ pi, files: SOURCE_FILES });
		const rpc = startRpc(box, [{ say: "one" }, { say: "two" }, { say: "three" }]);
		const expectOne = async (step) => {
			const check = (n) => n === 1;
			const live = await settleCount(box, check);
			assert.ok(check(live.length), `${step}: live gortex mcp children ${JSON.stringify(live)} (path ${path})`);
			return live;
		};

		await rpc.send({ type: "prompt", message: "go" });
		const first = await expectOne("after the first prompt");
		const state = await rpc.send({ type: "get_state" });
		const firstSession = state?.data?.sessionFile;

		const fresh = await rpc.send({ type: "new_session" });
		assert.equal(fresh?.success, true, JSON.stringify(fresh));
		await rpc.send({ type: "prompt", message: "again" });
		const afterNew = await expectOne("after /new and a prompt");
		if (path === "own") assert.notDeepEqual(afterNew, first, "the old session's child was replaced, not kept");

		assert.ok(firstSession, "the first session was saved");
		const resumed = await rpc.send({ type: "switch_session", sessionPath: firstSession });
		assert.equal(resumed?.success, true, JSON.stringify(resumed));
		await rpc.send({ type: "prompt", message: "resumed" });
		const afterResume = await expectOne("after resume and a prompt");

		const reloaded = await rpc.send({ type: "prompt", message: "/e2e-reload" }, { settle: false });
		assert.equal(reloaded?.success, true, JSON.stringify(reloaded));
		await rpc.send({ type: "prompt", message: "after reload" });
		const afterReload = await expectOne("after /reload and a prompt");
		if (path === "own") assert.notDeepEqual(afterReload, afterResume, "the reload replaced the child");

		const run = await rpc.quit();
		await assertClean(run); // no fake-gortex process alive after quit
		assert.ok(run.fake.some((r) => r.ev === "start" && r.verb === "mcp"), "a gortex mcp child ran at all");
	});
});
