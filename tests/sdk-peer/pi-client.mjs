/**
 * pi-client.mjs - a minimal Pi extension that is nothing but an MCP client on the official
 * TypeScript SDK: it connects to the server named by `PI_BENCH_SDK_SERVER` (`<bin> mcp`), lists
 * its tools once and registers each as a Pi tool whose execute is one `callTool`. Pi 0.87.1 has
 * no built-in MCP, so this is the session benchmark's stand-in there for "the same server in
 * Pi's own MCP" (bench/node/lib.mjs, `0.87.1 SDK client`): the same results in the session,
 * so its time and memory can be set against the extension's own client. It lives here to
 * resolve the SDK from this directory's node_modules. Tool names Pi already has (`read`,
 * `edit`, ...) get the `gortex_` prefix, as the extension's own client does.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const PI_TOOLS = new Set(["read", "edit", "write", "bash", "grep", "find", "ls"]);

function textOf(result) {
  return (result.content ?? [])
    .filter((item) => item.type === "text")
    .map((item) => item.text)
    .join("\n");
}

export default async function sdkClient(pi) {
  const command = process.env.PI_BENCH_SDK_SERVER;
  if (!command) return;
  const client = new Client({ name: "pi-bench-sdk-client", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args: ["mcp"], stderr: "ignore" }));
  const { tools } = await client.listTools();
  for (const tool of tools) {
    const name = PI_TOOLS.has(tool.name) ? `gortex_${tool.name}` : tool.name;
    pi.registerTool({
      name,
      label: name,
      description: tool.description ?? name,
      parameters: tool.inputSchema,
      execute: async (_id, params) => {
        const result = await client.callTool({ name: tool.name, arguments: params ?? {} });
        const text = textOf(result);
        if (result.isError) throw new Error(text);
        return { content: [{ type: "text", text }], details: {} };
      },
    });
  }
  pi.on("session_shutdown", () => client.close());
}
