// An independent MCP stdio server built on the official TypeScript SDK, for
// the Rust client's interop test (runtime/tests/test_sdk_interop.rs).
//
// It pages tools/list two tools at a time, adds a tool at runtime and
// announces it with notifications/tools/list_changed, and pings the client
// once the handshake is done. The `status` tool reports what it observed, so
// the Rust side can assert on the peer's view of the exchange.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const PAGE_SIZE = 2;
const objectSchema = { type: "object", properties: { text: { type: "string" } } };
const tools = [
  { name: "echo", description: "Echoes `text` back.", inputSchema: objectSchema },
  { name: "read", description: "A tool whose name collides with Pi's built-in.", inputSchema: objectSchema },
  { name: "status", description: "What the peer observed.", inputSchema: { type: "object" } },
  { name: "add_tool", description: "Adds `late_tool` and announces list_changed.", inputSchema: { type: "object" } },
  { name: "slow", description: "Answers after 5 s (for cancellation).", inputSchema: { type: "object" } },
  {
    name: "progress",
    description: "Reports `steps` progress notifications `every` ms apart, then answers.",
    inputSchema: { type: "object" },
  },
  {
    name: "big",
    description: "`lines` lines of `width` characters `char` (a whole-repository search, say).",
    inputSchema: { type: "object" },
  },
];
const observed = { ping: "not sent", cancelled: [], listCursors: [], clientInfo: null, protocolVersion: null };

const server = new Server({ name: "sdk-peer", version: "9.9.9" }, { capabilities: { tools: { listChanged: true } } });

server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const cursor = request.params?.cursor;
  observed.listCursors.push(cursor ?? null);
  const start = cursor ? Number.parseInt(cursor.slice("page-".length), 10) : 0;
  const page = tools.slice(start, start + PAGE_SIZE);
  const next = start + PAGE_SIZE < tools.length ? `page-${start + PAGE_SIZE}` : undefined;
  return next ? { tools: page, nextCursor: next } : { tools: page };
});

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name, arguments: args = {} } = request.params;
  const text = (value) => ({ content: [{ type: "text", text: value }] });
  switch (name) {
    case "echo":
      return text(`echo: ${args.text ?? ""}`);
    case "read":
      return text("peer read");
    case "status":
      return { ...text(JSON.stringify(observed)), structuredContent: observed };
    case "add_tool":
      if (!tools.some((tool) => tool.name === "late_tool")) {
        tools.push({ name: "late_tool", description: "Added at runtime.", inputSchema: objectSchema });
      }
      await server.sendToolListChanged();
      return text("added late_tool");
    case "progress": {
      const token = request.params._meta?.progressToken;
      const steps = args.steps ?? 5;
      for (let step = 1; step <= steps; step++) {
        await new Promise((resolve) => setTimeout(resolve, args.every ?? 100));
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: step, total: steps, message: `step ${step} of ${steps}` },
          });
        }
      }
      return text(`progress done after ${steps} steps (token ${JSON.stringify(token ?? null)})`);
    }
    case "big": {
      const line = (args.char ?? "x").repeat(args.width ?? 79);
      return text(Array.from({ length: args.lines ?? 1 }, (_, i) => `${i}:${line}`).join("\n"));
    }
    case "late_tool":
      return text("late tool called");
    case "slow":
      return await new Promise((resolve) => {
        const timer = setTimeout(() => resolve(text("slow done")), 5000);
        extra.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          observed.cancelled.push(String(extra.requestId));
        });
      });
    default:
      return { ...text(`unknown tool ${name}`), isError: true };
  }
});

server.oninitialized = () => {
  observed.clientInfo = server.getClientVersion() ?? null;
  observed.ping = "sent";
  server.ping().then(
    (result) => {
      observed.ping = `answered ${JSON.stringify(result)}`;
    },
    (error) => {
      observed.ping = `failed: ${error.message}`;
    },
  );
};

const transport = new StdioServerTransport();
await server.connect(transport);

// The protocol the SDK's negotiation chose, as its `initialize` result says.
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  if (typeof message.result?.protocolVersion === "string") observed.protocolVersion = message.result.protocolVersion;
  return send(message, options);
};

// SDK_PEER_PROTOCOL makes the peer a server that prefers that protocol: the client's offer is
// read as that version, so the SDK's own negotiation answers with it (if the SDK speaks it).
const forced = process.env.SDK_PEER_PROTOCOL;
if (forced) {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (message.method === "initialize" && message.params) message.params.protocolVersion = forced;
    deliver?.(message, extra);
  };
}
