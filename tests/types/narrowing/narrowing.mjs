// Writes the narrowing test of the generated TypeScript declarations, then `make test-ts` compiles
// it under `moduleResolution: NodeNext` and `Bundler`. Every tagged union is found in
// schema/*.schema.json here, independently of the code generator, so a union the generator
// stops treating as tagged still gets a test. For each union and each known tag, the generated
// code checks that comparing the tag (in an `if` and in a `switch`) leaves exactly that variant,
// that excluding every known tag leaves exactly the fallback (open unions) or nothing (closed
// ones), and that a plain string literal cannot pose as an unknown tag.
//
// Usage: node narrowing.mjs [--list]   (--list prints the unions found, one per line)

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const schemaDir = join(root, "schema");
const outFile = join(here, "narrowing.generated.mts");

/** `edit-details.schema.json` -> `edit_details`, the namespace of `types/index.d.ts`. */
const namespaceOf = (file) => file.replace(/\.schema\.json$/, "").replaceAll("-", "_");
const stemOf = (file) => file.replace(/\.schema\.json$/, "");

/** The string `const` of member `tag` in a variant (inline or its `$ref` target), if any. */
function constTag(variant, target, tag) {
  for (const schema of [variant, target]) {
    const value = schema?.properties?.[tag]?.const;
    if (typeof value === "string") return value;
  }
  return undefined;
}

/** True when a variant's `tag` is constrained by `not` (the open union's fallback). */
function isFallback(variant, target, tag) {
  return [variant, target].some((schema) => schema?.properties?.[tag]?.not !== undefined);
}

/** The tagged union a `oneOf`/`anyOf` list forms, or undefined. */
function taggedUnion(defs, variants) {
  const resolved = variants.map((variant) => {
    const ref = typeof variant.$ref === "string" ? variant.$ref.replace("#/$defs/", "") : undefined;
    return { variant, ref, target: ref ? defs[ref] : undefined };
  });
  const candidates = new Set(
    resolved.flatMap(({ variant, target }) =>
      Object.keys({ ...(variant.properties ?? {}), ...(target?.properties ?? {}) }),
    ),
  );
  for (const tag of candidates) {
    const known = [];
    const fallbacks = [];
    for (const r of resolved) {
      const value = constTag(r.variant, r.target, tag);
      if (value !== undefined) known.push({ tag: value, ref: r.ref });
      else if (isFallback(r.variant, r.target, tag)) fallbacks.push(r.ref);
    }
    if (known.length >= 2 && known.length + fallbacks.length === resolved.length && fallbacks.length <= 1) {
      return { tag, known, fallback: fallbacks[0] };
    }
  }
  return undefined;
}

/** Every tagged union of every schema file; throws on one the test cannot name. */
export function findTaggedUnions() {
  const unions = [];
  for (const file of readdirSync(schemaDir)
    .filter((f) => f.endsWith(".schema.json"))
    .sort()) {
    const document = JSON.parse(readFileSync(join(schemaDir, file), "utf8"));
    const defs = document.$defs ?? {};
    const visit = (node, pointer) => {
      if (node === null || typeof node !== "object") return;
      for (const key of ["oneOf", "anyOf"]) {
        if (!Array.isArray(node[key])) continue;
        const union = taggedUnion(defs, node[key]);
        if (!union) continue;
        const name = /^\/\$defs\/([^/]+)$/.exec(pointer)?.[1];
        if (!name)
          throw new Error(`${file}${pointer}: a tagged union that is not a $defs entry has no TypeScript name to test`);
        unions.push({ file, namespace: namespaceOf(file), stem: stemOf(file), name, ...union });
      }
      for (const [key, value] of Object.entries(node)) visit(value, `${pointer}/${key}`);
    };
    visit(document, "");
    // The generator's own marker must agree with what is found here.
    for (const [name, def] of Object.entries(defs)) {
      const tag = def["x-open-tag"];
      if (tag === undefined) continue;
      const found = unions.find((u) => u.file === file && u.name === name);
      if (!found || found.tag !== tag || !found.fallback) {
        throw new Error(`${file}: ${name} is marked x-open-tag "${tag}" but is not an open union tagged by it here`);
      }
    }
  }
  return unions;
}

const str = (value) => JSON.stringify(value);

function variantType(union, known) {
  const ns = union.namespace;
  return known.ref ? `${ns}.${known.ref}` : `Extract<${ns}.${union.name}, { ${str(union.tag)}: ${str(known.tag)} }>`;
}

function unionTest(union) {
  const ns = union.namespace;
  const u = `${ns}.${union.name}`;
  const member = /^[A-Za-z_$][\w$]*$/.test(union.tag) ? `u.${union.tag}` : `u[${str(union.tag)}]`;
  const id = `${ns}_${union.name}`;
  const lines = [];
  lines.push(
    `// ${u}: tagged by \`${union.tag}\`, known ${union.known.map((k) => str(k.tag)).join(", ")}; ${union.fallback ? `open, fallback ${union.fallback}` : "closed"}.`,
  );
  lines.push(`export function ifNarrows_${id}(u: ${u}): number {`);
  for (const known of union.known) {
    const v = variantType(union, known);
    lines.push(`  if (${member} === ${str(known.tag)}) {`);
    lines.push(`    const exact: Equal<typeof u, ${v}> = true;`);
    lines.push(`    const notNever: IsNever<${v}> = false;`);
    lines.push(`    return exact && !notNever ? 1 : 0;`);
    lines.push(`  }`);
  }
  if (union.fallback) {
    lines.push(`  const rest: Equal<typeof u, ${ns}.${union.fallback}> = true;`);
    lines.push(`  const tag: string = ${member};`);
    lines.push(`  return rest ? tag.length : 0;`);
  } else {
    lines.push(`  const rest: never = u;`);
    lines.push(`  return rest;`);
  }
  lines.push(`}`);
  lines.push(`export function switchNarrows_${id}(u: ${u}): number {`);
  lines.push(`  switch (${member}) {`);
  for (const known of union.known) {
    lines.push(`    case ${str(known.tag)}: {`);
    lines.push(`      const exact: Equal<typeof u, ${variantType(union, known)}> = true;`);
    lines.push(`      return exact ? 1 : 0;`);
    lines.push(`    }`);
  }
  lines.push(`    default: {`);
  if (union.fallback) {
    lines.push(`      const rest: Equal<typeof u, ${ns}.${union.fallback}> = true;`);
    lines.push(`      return rest ? 2 : 0;`);
  } else {
    lines.push(`      const rest: never = u;`);
    lines.push(`      return rest;`);
  }
  lines.push(`    }`);
  lines.push(`  }`);
  lines.push(`}`);
  if (union.fallback) {
    lines.push(`// A plain string cannot pose as an unknown tag: only decoding (or an explicit \`as\`) makes one.`);
    lines.push(`// @ts-expect-error`);
    lines.push(`export const posing_${id}: ${ns}.${union.fallback} = { ${str(union.tag)}: "not-a-known-tag" };`);
    lines.push(
      `export const declared_${id}: ${u} = { ${str(union.tag)}: "not-a-known-tag" as ${ns}.${union.name}UnknownTag };`,
    );
  }
  return lines.join("\n");
}

export function render(unions) {
  const stems = [...new Map(unions.map((u) => [u.namespace, u.stem])).entries()].sort();
  return [
    "// generated by tests/types/narrowing/narrowing.mjs from schema/*.schema.json; do not edit",
    `// ${unions.length} tagged unions: ${unions.map((u) => `${u.namespace}.${u.name}`).join(", ")}`,
    ...stems.map(([ns, stem]) => `import type * as ${ns} from "../../../bindings/node/types/${stem}.js";`),
    "",
    "type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;",
    "type IsNever<T> = [T] extends [never] ? true : false;",
    "",
    ...unions.map(unionTest).map((block) => `${block}\n`),
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const unions = findTaggedUnions();
  if (unions.length === 0) {
    console.error("narrowing: no tagged union found in schema/*.schema.json; the discovery is broken");
    process.exit(1);
  }
  if (process.argv.includes("--list")) {
    for (const u of unions) console.log(`${u.namespace}.${u.name}`);
  }
  writeFileSync(outFile, render(unions));
  console.log(`narrowing: ${unions.length} tagged unions -> ${outFile.slice(root.length + 1)}`);
}
