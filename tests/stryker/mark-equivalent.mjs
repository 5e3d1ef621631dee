// Writes the equivalent mutants of tests/stryker/equivalent.json into the scratch copy Stryker
// mutates: a `// Stryker disable next-line` comment above each listed line. A line found zero or
// several times fails the run, so the list cannot outlive the code it describes.
// Usage: node tests/stryker/mark-equivalent.mjs <list> <root of the copy>
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [list, root] = process.argv.slice(2);
const { equivalent } = JSON.parse(readFileSync(list, "utf8"));
const byFile = Map.groupBy(equivalent, (entry) => entry.file);
let failed = false;
for (const [file, entries] of byFile) {
  const path = join(root, file);
  const lines = readFileSync(path, "utf8").split("\n");
  const marks = new Map();
  for (const { line, mutators, why } of entries) {
    const at = lines.flatMap((text, index) => (text.trim() === line ? [index] : []));
    if (at.length !== 1) {
      console.error(`${file}: found ${at.length} times, not once: ${line}`);
      failed = true;
      continue;
    }
    const indent = lines[at[0]].match(/^\s*/)[0];
    marks.set(at[0], `${indent}// Stryker disable next-line ${mutators}: ${why}`);
  }
  const marked = lines.flatMap((text, index) => (marks.has(index) ? [marks.get(index), text] : [text]));
  writeFileSync(path, marked.join("\n"));
}
if (failed) process.exit(1);
