//! harness.test.mjs - the headless harness itself works on both Pi versions, before any
//! pi-gortex is involved: the scripted faux model plays its turns, the context it received is
//! recorded, and print, JSON and RPC modes each end the way the spec says (E2E-4..7).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { missing, NODE22, PI } from "./lib/hosts.mjs";
import { runRpc } from "./lib/rpc.mjs";
import { describeRun, reportOf, runPi } from "./lib/run.mjs";

const script = [{ call: "read", args: { path: "hello.txt" } }, { say: "thinking" }, { report: true }];
const files = { "hello.txt": "hello world\n" };

for (const version of Object.keys(PI)) {
  describe(`harness on Pi ${version}`, { concurrency: true, skip: missing(NODE22, PI[version].cli) ?? false }, () => {
    test("print mode: scripted turns run and the model sees each tool result", async () => {
      // `say` ends the agent loop, so the report step is the answer to a second prompt; in
      // print mode one prompt gets one agent run: the final text is the `say` step.
      const run = await runPi({ pi: version, gortex: false, script, files });
      assert.equal(run.status, 0, describeRun(run));
      assert.equal(run.stdout.trim(), "thinking");
      assert.equal(run.models.length, 2, "one model request per turn");
      assert.deepEqual(
        run.models[0].messages.map((m) => m.role),
        ["system", "user"],
      );
      const second = run.models[1].messages;
      assert.deepEqual(second[2].calls, [{ id: "call_1", name: "read", args: { path: "hello.txt" } }]);
      assert.equal(second[3].role, "toolResult");
      assert.equal(second[3].isError, false);
      assert.match(second[3].text, /hello world/);
      assert.ok(
        run.models[0].tools.some((t) => t.name === "read"),
        "the model is offered Pi's read tool",
      );
      const names = run.events.map((e) => e.ev);
      for (const ev of [
        "session_start",
        "before_agent_start",
        "turn_start",
        "tool_call",
        "tool_result",
        "tool_execution_end",
        "turn_end",
        "agent_end",
        "session_shutdown",
      ]) {
        assert.ok(names.includes(ev), `event ${ev} recorded`);
      }
      const start = run.events.find((e) => e.ev === "session_start");
      assert.equal(start.mode, "print");
      assert.equal(start.hasUI, false);
      assert.equal(start.cwd, run.box.work);
    });

    test("print mode: a report step lists tool results and user messages", async () => {
      const run = await runPi({ pi: version, gortex: false, prompt: "look", script: [script[0], script[2]], files });
      assert.equal(run.status, 0, describeRun(run));
      const report = reportOf(run.stdout);
      assert.deepEqual(report.users, ["look"]);
      assert.equal(report.toolResults.length, 1);
      assert.equal(report.toolResults[0].name, "read");
      assert.equal(report.toolResults[0].isError, false);
      assert.match(report.toolResults[0].text, /hello world/);
    });

    test("print mode: an exhausted script answers DONE", async () => {
      const run = await runPi({ pi: version, gortex: false, script: [] });
      assert.equal(run.status, 0, describeRun(run));
      assert.equal(run.stdout.trim(), "DONE");
    });

    test("JSON mode: the event stream carries the session header, tool execution and settle", async () => {
      const run = await runPi({ pi: version, gortex: false, mode: "json", script: [script[0], script[2]], files });
      assert.equal(run.status, 0, describeRun(run));
      assert.equal(run.json[0].type, "session");
      assert.equal(run.json[0].cwd, run.box.work);
      const end = run.json.find((e) => e.type === "tool_execution_end");
      assert.equal(end.toolName, "read");
      assert.equal(end.isError, false);
      assert.match(end.result.content[0].text, /hello world/);
      const lastAssistant = run.json.filter((e) => e.type === "message_end" && e.message.role === "assistant").at(-1);
      assert.match(lastAssistant.message.content[0].text, /^REPORT /);
      assert.ok(run.json.some((e) => e.type === "agent_end"));
    });

    test("RPC mode: two prompts run in one session and Pi exits 0 when stdin closes", async () => {
      const run = await runRpc({
        pi: version,
        gortex: false,
        commands: ["first", "second"],
        script: [{ say: "one" }, { report: true }],
      });
      assert.equal(run.status, 0, describeRun(run));
      assert.equal(run.timedOut, false);
      assert.deepEqual(reportOf(run.lastText).users, ["first", "second"]);
      assert.equal(run.events.find((e) => e.ev === "session_start").mode, "rpc");
    });
  });
}
