// Per-type round-trip counts of the generated types, for the record (`make roundtrip-counts`):
// runs the Rust property test (pi-gortex-schema, test_roundtrip_property) and the Go property and
// corpus tests (bindings/go), reads the counts each logs per type, and prints one Markdown table,
// the totals, and the documented exceptions as the sources state them (the Rust test's header
// and the Go package doc). Exits 1 when a suite fails or a type is missing from one of them.

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 << 20 });
  if (result.status !== 0) {
    process.stderr.write(`${command} ${args.join(" ")} failed (${result.status}):\n${result.stdout}${result.stderr}`);
    process.exit(1);
  }
  return `${result.stdout}\n${result.stderr}`;
}

const cargo = process.env.CARGO ?? "cargo";
const go = process.env.GO ?? "go";

// Rust: "<Type>: <n> values" per type, printed with --nocapture.
const rustOut = run(
  cargo,
  [
    "test",
    "-q",
    "-p",
    "pi-gortex-schema",
    "--test",
    "test_roundtrip_property",
    "every_schema_valid_value_round_trips",
    "--",
    "--nocapture",
  ],
  root,
);
const rust = new Map([...rustOut.matchAll(/^(\w+): (\d+) values$/gm)].map((m) => [m[1], Number(m[2])]));

// Go: "<Type> <passed> of <n> generated values round-tripped" and "... <n> values round-tripped".
const goOut = run(
  go,
  [
    "test",
    "-count=1",
    "-v",
    "-run",
    "TestGeneratedSchemaValidValuesRoundTripExactly|TestEverySchemaValidValueRoundTripsExactly",
    ".",
  ],
  join(root, "bindings/go"),
);
const goGenerated = new Map();
const goCorpus = new Map();
for (const m of goOut.matchAll(/:\d+: (\w+)\s+(\d+) of\s+(\d+) (generated )?values round-tripped/g)) {
  (m[4] ? goGenerated : goCorpus).set(m[1], `${m[2]}/${m[3]}`);
}

const types = [...new Set([...rust.keys(), ...goGenerated.keys(), ...goCorpus.keys()])].sort();
const lines = [
  "| Type | Rust (generated, all round-tripped) | Go (generated) | Go (corpus + examples) |",
  "|---|---|---|---|",
];
let missing = 0;
for (const type of types) {
  const cells = [rust.get(type), goGenerated.get(type), goCorpus.get(type)].map((cell) => {
    if (cell === undefined) missing++;
    return cell ?? "missing";
  });
  lines.push(`| ${type} | ${cells.join(" | ")} |`);
}
const sum = (map) => [...map.values()].reduce((a, v) => a + Number(String(v).split("/")[0]), 0);
const of = (map) => [...map.values()].reduce((a, v) => a + Number(String(v).split("/")[1]), 0);
lines.push("");
lines.push(`Types: ${types.length}. Rust: ${sum(rust)} generated values round-tripped (${rust.size} types).`);
lines.push(
  `Go: ${sum(goGenerated)} of ${of(goGenerated)} generated values (${goGenerated.size} types); ${sum(goCorpus)} of ${of(goCorpus)} corpus and example files (${goCorpus.size} types).`,
);

// The documented exceptions, quoted from where they are documented.
const rustHeader = readFileSync(join(root, "schema/tests/test_roundtrip_property.rs"), "utf8");
const rustExceptions = /^\/\/! Documented exceptions: ([\s\S]*?)(?:\n\n|\n\s*$|\nuse )/m.exec(rustHeader)?.[1];
const goDoc = readFileSync(join(root, "bindings/go/doc.go"), "utf8");
const goParagraphs = goDoc.split(/\n\/\/\n/).map((p) =>
  p
    .replace(/^\/\/ ?/gm, "")
    .replace(/\s+/g, " ")
    .trim(),
);
const surrogate = goParagraphs.find((p) => p.includes("lone UTF-16 surrogate"));
const valueFields = goParagraphs.find((p) => p.startsWith("The exception:"));
lines.push("", "Documented exceptions:");
lines.push(
  `- Rust and Go (schema/tests/test_roundtrip_property.rs): ${(rustExceptions ?? "NOT FOUND").replace(/\n\/\/!\s*/g, " ")}`,
);
lines.push(
  `- Go strings (bindings/go/doc.go): ${surrogate?.slice(surrogate.indexOf("A string member")) ?? "NOT FOUND"}`,
);
lines.push(`- Go value-field types (bindings/go/doc.go): ${valueFields ?? "NOT FOUND"}`);
console.log(lines.join("\n"));
if (missing > 0 || !rustExceptions || !surrogate || !valueFields) {
  console.error(`roundtrip-counts: ${missing} missing counts or an exception paragraph not found`);
  process.exit(1);
}
