//! demo.mjs - `make demo`: one real Pi 1.6.0 session, headless, with the packed pi-gortex
//! extension installed as a user installs it, a scripted model, and a Gortex daemon.
//!
//! The daemon is fake-gortex (tests/fake-gortex), a simulator of the Gortex daemon, unless
//! GORTEX_BIN names a real `gortex`. The model is Pi's faux provider playing a fixed script
//! (tests/e2e/faux-model.ts): it explores with a graph tool, tries Pi's own `read` on indexed
//! source and is redirected by the hook, reads through Gortex, edits through Gortex, and answers.
//! The program prints that session as a transcript built from Pi's JSON event stream (and, with
//! the simulator, the hook decisions from its log), then exits with Pi's status.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { hookRecords } from "../e2e/lib/gortex.mjs";
import { FAKE_GORTEX, missing, NODE22, PI, TARBALL } from "../e2e/lib/hosts.mjs";
import { finalText, runPi } from "../e2e/lib/run.mjs";

const PI_VERSION = "1.6.0";
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = paint("1");
const dim = paint("2");
const red = paint("31");
const green = paint("32");
const yellow = paint("33");
const cyan = paint("36");

const GO_SOURCE = `package main

import "fmt"

// Greeting returns the line main prints.
func Greeting(name string) string {
	return "Hello, " + name
}

func main() {
	fmt.Println(Greeting("world"))
}
`;

const PROMPT = "Make Greeting end its line with an exclamation mark.";
const T = (bare) => `mcp__gortex__${bare}`;
const SCRIPT = [
  { call: T("search"), args: { operation: "symbols", query: "Greeting" } },
  { call: "read", args: { path: "main.go" } },
  { call: T("read"), args: { operation: "file", target: { file: "main.go" } } },
  {
    call: T("edit"),
    args: {
      operation: "file",
      target: { file: "main.go" },
      match: 'return "Hello, " + name',
      replacement: 'return "Hello, " + name + "!"',
    },
  },
  {
    say: 'Done: `Greeting` in main.go now returns "Hello, <name>!". I found it through the Gortex graph, read it through Gortex after the hook redirected my plain read, and edited it through Gortex.',
  },
];

function daemonLine() {
  if (!process.env.GORTEX_BIN) {
    return `${bold("Gortex daemon:")} fake-gortex, a SIMULATOR of the Gortex daemon (tests/fake-gortex; set GORTEX_BIN=/path/to/gortex to use a real one)`;
  }
  const version = spawnSync(process.env.GORTEX_BIN, ["version"], { encoding: "utf8", timeout: 5000 });
  const what = (version.stdout || version.stderr || "version unknown").trim();
  return `${bold("Gortex daemon:")} the real gortex at ${process.env.GORTEX_BIN} (${what})`;
}

const indent = (text, prefix = "    ") =>
  text
    .split("\n")
    .map((l) => prefix + l)
    .join("\n");
const clip = (text, max = 400) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

function colorDiff(diff) {
  return diff
    .split("\n")
    .map((line) => (line.startsWith("+") ? green(line) : line.startsWith("-") ? red(line) : dim(line)))
    .join("\n");
}

/** What the hook decided for the n-th tool call, from the simulator's log (real gortex: unknown). */
function hookDecisions(fake) {
  return hookRecords(fake)
    .filter((r) => r.envelope?.event === "tool_call")
    .map((r) => r.decision);
}

function describeDecision(decision) {
  if (!decision || typeof decision !== "object") return undefined;
  if (decision.block === true) return red("BLOCKED");
  if (typeof decision.additional_context === "string" && decision.additional_context)
    return yellow("allowed, with guidance");
  return green("allowed");
}

function printTranscript(run) {
  const decisions = hookDecisions(run.fake);
  let callIndex = 0;
  for (const event of run.json) {
    if (event.type === "message_end") {
      const message = event.message;
      if (message.role === "user") {
        console.log(`\n${bold("user ›")} ${message.content.map((c) => c.text ?? "").join("")}`);
      } else if (message.role === "custom" && message.customType === "gortex") {
        const label = message.display ? "gortex guidance (shown)" : "gortex briefing (hidden message the model reads)";
        console.log(`\n${cyan(label)}\n${dim(indent(clip(String(message.content), 700)))}`);
      } else if (message.role === "assistant") {
        for (const block of message.content) {
          if (block.type === "toolCall") {
            console.log(`\n${bold("model › calls")} ${cyan(block.name)} ${JSON.stringify(block.arguments)}`);
            const decision = describeDecision(decisions[callIndex]);
            callIndex += 1;
            if (decision) console.log(`  hook (gortex hook --agent=pi) › ${decision}`);
          } else if (block.type === "text" && block.text) {
            console.log(`\n${bold("model ›")} ${block.text}`);
          }
        }
      }
    } else if (event.type === "tool_execution_end") {
      const text = (event.result?.content ?? []).map((c) => c.text ?? "").join("\n");
      const mark = event.isError ? red("✗ error result") : green("✓ result");
      // A denial is the point of the read discipline: show it whole.
      console.log(`  ${mark}\n${indent(event.isError ? text.trimEnd() : clip(text))}`);
      const diffs = event.result?.details?.diffs;
      if (Array.isArray(diffs)) {
        for (const entry of diffs) {
          console.log(
            `  ${bold("diff")} ${entry.path}${entry.note ? ` ${dim(entry.note)}` : ""} ${dim("(details.diffs of the tool result, drawn by Pi's UI)")}`,
          );
          if (entry.diff) console.log(indent(colorDiff(entry.diff)));
        }
      }
    }
  }
}

async function main() {
  const absent = missing(NODE22, PI[PI_VERSION].cli, TARBALL, ...(process.env.GORTEX_BIN ? [] : [FAKE_GORTEX]));
  if (absent) {
    console.error(`demo: ${absent} (run \`make demo\`, which builds them)`);
    process.exit(2);
  }
  console.log(bold("pi-gortex demo"));
  console.log(
    `${bold("Pi:")} @earendil-works/pi-coding-agent ${PI_VERSION}, headless (--mode json), model = scripted faux provider`,
  );
  console.log(`${bold("Extension:")} ${TARBALL}, installed with \`pi install\``);
  console.log(daemonLine());
  const run = await runPi({
    pi: PI_VERSION,
    mode: "json",
    prompt: PROMPT,
    files: { "main.go": GO_SOURCE },
    script: SCRIPT,
    env: process.env.GORTEX_BIN ? { GORTEX_BIN: process.env.GORTEX_BIN } : {},
  });
  printTranscript(run);
  const after = readFileSync(`${run.box.work}/main.go`, "utf8");
  console.log(`\n${bold("main.go after the session")}\n${dim(indent(after.trimEnd()))}`);
  const answered = finalText(run).startsWith("Done:");
  console.log(`\n${bold("Pi exit status:")} ${run.status}${run.timedOut ? " (killed after 60 s)" : ""}`);
  if (run.status !== 0 || run.timedOut || !answered) {
    console.error(`demo: the session did not complete\n${run.stderr}`);
    process.exit(1);
  }
}

main();
