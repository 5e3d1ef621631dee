// `make structure`: every `make <target>` that README.md and docs/**/*.md name in a code span is a
// public target, one `make help` lists (the Makefile's `## group: text` annotations), so the docs
// cannot send a reader to a target that is gone or internal.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function markdown(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdown(path);
    return name.endsWith(".md") ? [path] : [];
  });
}

const help = execFileSync("make", ["--no-print-directory", "-s", "-C", ROOT, "help"], { encoding: "utf8" });
const listed = new Set([...help.matchAll(/^ {2}make (\S+)/gm)].map((m) => m[1]));

const problems = [];
for (const file of [join(ROOT, "README.md"), ...markdown(join(ROOT, "docs"))]) {
  const text = readFileSync(file, "utf8");
  // A code span that starts with `make `: its target names, up to the first other word (VAR=value).
  for (const m of text.matchAll(/`make ([^`\n]+)`/g)) {
    for (const word of m[1].split(/\s+/)) {
      if (!/^[a-z][a-z0-9-]*$/.test(word)) break;
      if (!listed.has(word))
        problems.push(`${relative(ROOT, file)}: \`make ${word}\` is not a target \`make help\` lists`);
    }
  }
}

if (listed.size === 0) problems.push("`make help` listed no target");
for (const p of problems) console.error(p);
if (problems.length > 0) process.exit(1);
console.log(
  `make targets: every \`make <target>\` in README.md and docs/ is one of the ${listed.size} \`make help\` lists`,
);
