//! mcp_parity.test.mjs - one behaviour whichever path (MCP-37, MCP-38): the same scripted server
//! (the official MCP SDK, tests/sdk-peer/content-server.mjs) and the same calls through Pi 1.6.0's
//! built-in MCP, Pi 1.6.0 with `--no-mcp` and Pi 0.87.1 (the extension's own client), compared
//! call by call: the blocks the model gets (text and images, `isError`) and what the user's
//! interface gets (`tool_execution_end`). Every difference is one docs/rules.md documents,
//! asserted here as documented; anything else fails. The counts go to stdout for docs/mcp-parity.md.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { assertClean } from "./lib/gortex.mjs";
import { FAKE_GORTEX, missing, NODE22, PI, TARBALL } from "./lib/hosts.mjs";
import {
  CONTENT_SERVER,
  gortexWrapper,
  PATHS,
  resultsOf,
  runPath,
  SDK,
  savedFiles,
  withoutRandomNames,
} from "./lib/parity.mjs";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const text = (t) => ({ type: "text", text: t });
const repeat = (unit, times) => ({ type: "text", repeat: unit, times });
const MIB = 1024 * 1024;
const LINE = 'é✓ hit in src/handlers/user.go:42 func Handle(req) -> "ok"\n';

/** Pi's read hint after a resource link, which only its built-in MCP can offer (MCP-38 a). */
const READ_HINT = '. Read it with read_mcp_resource (server "gortex")';

/**
 * The calls. `differs` names the documented difference the own client shows, and `own(native)`
 * states it: the blocks the own client must give, from the native ones.
 */
const CALLS = [
  { name: "a few bytes of text", args: { content: [text("ok")] } },
  { name: "1 KiB of lines", args: { content: [repeat("line of text\n", 80)] } },
  { name: "exactly 20 KiB: kept whole", args: { content: [repeat("x", 20 * 1024)] } },
  { name: "20 KiB and one byte: cut", args: { content: [repeat("x", 20 * 1024 + 1)] } },
  { name: "3 MiB of multibyte lines: cut", args: { content: [repeat(LINE, Math.ceil((3 * MIB) / 64))] } },
  { name: "8 MiB in one line: cut", args: { content: [repeat("0123456789abcdef", (8 * MIB) / 16)] } },
  { name: "two texts: two blocks", args: { content: [text("first"), text("second")] } },
  {
    name: "text, image, text",
    args: { content: [text("before"), { type: "image", data: PNG, mimeType: "image/png" }, text("after")] },
  },
  {
    name: "an image of 256 KiB alone",
    args: { content: [{ type: "image", bytes: 256 * 1024, mimeType: "image/webp" }] },
  },
  {
    name: "resource links",
    args: {
      content: [
        {
          type: "resource_link",
          uri: "file:///repo/src/a.go",
          name: "a.go",
          title: "The main file",
          mimeType: "text/x-go",
          size: 1280,
          description: "where main is",
        },
        { type: "resource_link", uri: "gortex://symbol/Handle", name: "Handle" },
      ],
    },
    differs: "MCP-38 a",
    own: (native) =>
      native.map((b) => ({
        ...b,
        text: b.text.endsWith(`${READ_HINT}]`) ? `${b.text.slice(0, -READ_HINT.length - 1)}]` : "not hinted",
      })),
  },
  {
    name: "embedded resources: text, image, JSON blob, binary blob",
    args: {
      content: [
        { type: "resource", resource: { uri: "file:///repo/a.go", mimeType: "text/x-go", text: "package a\n" } },
        { type: "resource", resource: { uri: "file:///repo/logo.png", mimeType: "image/png", blob: PNG } },
        {
          type: "resource",
          resource: {
            uri: "file:///repo/out.json",
            mimeType: "application/json",
            blob: Buffer.from('{"k":[1,2]}').toString("base64"),
          },
        },
        {
          type: "resource",
          resource: { uri: "file:///repo/data.bin", mimeType: "application/octet-stream", bytes: 3000 },
        },
      ],
    },
  },
  { name: "audio: a placeholder", args: { content: [{ type: "audio", data: "UklGRg==", mimeType: "audio/wav" }] } },
  {
    name: "a large text then an image: cut, the image after",
    args: { content: [repeat("y\n", 40_000), { type: "image", data: PNG, mimeType: "image/png" }] },
  },
  { name: "isError with a text", args: { isError: true, content: [text("the symbol does not exist")] } },
  {
    name: "isError without a text",
    args: { isError: true, content: [] },
    differs: "MCP-35",
    own: () => [text("gortex result failed")],
  },
  {
    name: "isError with two texts and an image",
    args: {
      isError: true,
      content: [text("first"), { type: "image", data: PNG, mimeType: "image/png" }, text("second")],
    },
    differs: "MCP-38 b",
    own: (native) => [
      text(
        native
          .filter((b) => b.type === "text")
          .map((b) => b.text)
          .join("\n"),
      ),
    ],
  },
  { name: "structuredContent beside a text", args: { content: [text('{"hits":2}')], structuredContent: { hits: 2 } } },
  {
    name: "structuredContent alone",
    args: { content: [], structuredContent: { hits: [1, 2], file: "a.go" } },
    differs: "MCP-35",
    own: (native) => [text(JSON.stringify(JSON.parse(native[0].text)))],
  },
];

/** What a call's expected own-client blocks are, from the native ones. */
function expectedOwn(call, native) {
  return call.own ? call.own(native) : native;
}

const absent = missing(NODE22, PI["1.6.0"].cli, PI["0.87.1"].cli, FAKE_GORTEX, TARBALL, CONTENT_SERVER, SDK);
const skip = absent && process.env.PI_E2E_REQUIRE_BUILT !== "1" ? absent : false;

describe("MCP parity: the same server and calls through Pi's built-in MCP and the own client", { skip }, () => {
  const runs = {};
  const tally = { compared: 0, documented: 0, undocumented: 0 };
  let bin;

  before(async () => {
    assert.equal(absent, null, absent ?? "");
    bin = gortexWrapper();
    // One path at a time: three Pi processes with MiB results at once are too much for two cores.
    for (const path of PATHS) runs[path.key] = await runPath(path, CALLS, bin);
  });

  after(() => {
    if (bin) rmSync(bin, { force: true });
    process.stdout.write(
      `mcp parity: ${tally.compared} calls compared on ${PATHS.length - 1} own-client paths, ` +
        `${tally.documented} documented differences, ${tally.undocumented} undocumented\n`,
    );
  });

  test("every path runs clean: the script played to the end, no leaked server, silent stderr", async () => {
    for (const path of PATHS) await assertClean(runs[path.key]);
  });

  CALLS.forEach((call, index) => {
    const id = `call_${index + 1}`;
    test(`${index + 1}. ${call.name}${call.differs ? ` (documented: ${call.differs})` : ""}`, () => {
      const native = resultsOf(runs.native);
      const nativeModel = native.model.get(id);
      assert.ok(nativeModel, `the native path answered ${id}`);
      assert.equal(nativeModel.isError, call.args.isError === true, "native isError");
      const nativeFiles = savedFiles(nativeModel.content);
      for (const path of PATHS.slice(1)) {
        const own = resultsOf(runs[path.key]);
        const model = own.model.get(id);
        assert.ok(model, `${path.key} answered ${id}`);
        tally.compared += 1;
        const expected = expectedOwn(call, withoutRandomNames(nativeModel.content));
        const got = withoutRandomNames(model.content);
        try {
          assert.deepEqual(got, expected, `${path.key}: the model's blocks`);
          assert.equal(model.isError, nativeModel.isError, `${path.key}: isError`);
        } catch (error) {
          tally.undocumented += 1;
          throw error;
        }
        if (call.differs) {
          // The documented difference is really there (else the rule is stale).
          assert.notDeepEqual(
            got,
            withoutRandomNames(nativeModel.content),
            `${path.key}: ${call.differs} still differs`,
          );
          tally.documented += 1;
        }
        // A cut text's full output and a binary resource are saved alike on both paths.
        const files = savedFiles(model.content);
        assert.equal(files.length, call.own ? files.length : nativeFiles.length, `${path.key}: files named`);
        files.forEach((file, at) => {
          assert.ok(file.bytes, `${path.key}: ${file.path} exists`);
          if (!call.own)
            assert.deepEqual(file.bytes, nativeFiles[at].bytes, `${path.key}: ${file.path} holds what Pi saved`);
        });
        // The user's interface gets the same blocks as the model (`tool_execution_end`).
        const user = own.user.get(id);
        assert.deepEqual(withoutRandomNames(user.result.content), got, `${path.key}: the user's blocks`);
        assert.equal(user.isError, model.isError, `${path.key}: the user's isError`);
        // MCP-36: the structured result is kept in details; Pi keeps the whole result beside the content.
        if (call.args.structuredContent !== undefined && !model.isError) {
          assert.deepEqual(
            user.result.details?.structuredContent,
            call.args.structuredContent,
            `${path.key}: details.structuredContent`,
          );
          const nativeUser = native.user.get(id);
          assert.deepEqual(nativeUser.result.structuredContent?.structuredContent, call.args.structuredContent);
        }
      }
    });
  });
});
