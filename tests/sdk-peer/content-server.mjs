// A scripted MCP stdio server on the official TypeScript SDK, for the side-by-side parity test
// (tests/e2e/mcp_parity.test.mjs): one tool, `result`, answers with the result its arguments
// describe, so the same call reaches Pi's built-in MCP and the extension's own client alike.
//
// Arguments: `{content: [block…], isError?, structuredContent?}`. A block is sent as given, except
// that a text block with `repeat` and `times` has that text repeated `times` times, and an image or
// embedded blob with `bytes: n` carries n deterministic bytes in base64 (results of several MiB
// without megabytes of arguments). It says it is gortex, of a current version, with tools and
// resources (an empty list), as `gortex mcp` does, so the extension treats it as the daemon.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const VERSION = process.env.CONTENT_SERVER_VERSION ?? "0.64.4";

const server = new Server(
  { name: "gortex", version: VERSION },
  { capabilities: { tools: { listChanged: true }, resources: {} } },
);

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "result",
      description: "Answers with the result its arguments describe (content blocks, isError, structuredContent).",
      inputSchema: { type: "object", properties: { content: { type: "array" } } },
    },
  ],
}));
server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [] }));

/** `n` bytes that are the same on every run: a counter, so every byte value occurs. */
function base64Bytes(n) {
  const bytes = Buffer.alloc(n);
  for (let i = 0; i < n; i++) bytes[i] = (i * 7 + 3) & 0xff;
  return bytes.toString("base64");
}

function expand(block) {
  if (block.type === "text" && typeof block.repeat === "string") {
    return { type: "text", text: block.repeat.repeat(block.times ?? 1) };
  }
  if (block.type === "image" && typeof block.bytes === "number") {
    const { bytes, ...rest } = block;
    return { ...rest, data: base64Bytes(bytes) };
  }
  if (block.type === "resource" && typeof block.resource?.bytes === "number") {
    const { bytes, ...rest } = block.resource;
    return { ...block, resource: { ...rest, blob: base64Bytes(bytes) } };
  }
  return block;
}

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  if (name !== "result") return { content: [{ type: "text", text: `unknown tool ${name}` }], isError: true };
  const result = { content: (args.content ?? []).map(expand) };
  if (args.isError !== undefined) result.isError = args.isError;
  if (args.structuredContent !== undefined) result.structuredContent = args.structuredContent;
  return result;
});

await server.connect(new StdioServerTransport());
