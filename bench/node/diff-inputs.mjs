// Benchmark inputs shared by diff.mjs (Pi's timing) and the Rust criterion
// bench `diff_engine` (ours): four before/after pairs, built from a seeded
// generator so every run and both sides diff the same bytes.
//
//   a: 2,000-line file, 5 scattered edits
//   b: ~1 MiB file, 50 scattered edits
//   c: ~1 MiB file, 2,000 scattered edits
//   d: whole-file rewrite of 5,000 lines

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Source-like lines: indentation, some repeated structural lines.
function codeLines(r, count, tag) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const roll = r();
    if (roll < 0.08) out.push("}");
    else if (roll < 0.14) out.push("");
    else {
      const indent = "    ".repeat(1 + Math.floor(r() * 3));
      out.push(`${indent}let ${tag}${i} = compute(${Math.floor(r() * 1e6)}, "${"x".repeat(Math.floor(r() * 24))}");`);
    }
  }
  return out;
}

function linesForBytes(r, bytes, tag) {
  const out = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = codeLines(r, 1, `${tag}${i}_`)[0];
    if (size + line.length + 1 > bytes) break;
    out.push(line);
    size += line.length + 1;
  }
  return out;
}

// Replace `edits` lines at evenly spread, jittered positions; a third of the
// edits also insert or delete a line, so line numbers shift.
function scatter(r, base, edits) {
  const out = base.slice();
  const step = out.length / edits;
  for (let e = edits - 1; e >= 0; e--) {
    const at = Math.min(out.length - 1, Math.floor(e * step + r() * step * 0.5));
    const kind = e % 3;
    if (kind === 0) out[at] = `    edited(${e}, ${Math.floor(r() * 1e6)});`;
    else if (kind === 1) out.splice(at, 0, `    inserted(${e});`);
    else out.splice(at, 1);
  }
  return out;
}

export function benchCases() {
  const r = rng(0xbe7c4);
  const join = (ls) => `${ls.join("\n")}\n`;
  const a = codeLines(r, 2000, "a");
  const b = linesForBytes(r, 1024 * 1024 - 1, "b");
  const c = linesForBytes(r, 1024 * 1024 - 1, "c");
  const dOld = codeLines(r, 5000, "d");
  const dNew = codeLines(r, 5000, "w");
  return [
    { id: "a_2000_lines_5_edits", old: join(a), new: join(scatter(r, a, 5)) },
    { id: "b_1mib_50_edits", old: join(b), new: join(scatter(r, b, 50)) },
    { id: "c_1mib_2000_edits", old: join(c), new: join(scatter(r, c, 2000)) },
    { id: "d_rewrite_5000_lines", old: join(dOld), new: join(dNew) },
  ];
}
