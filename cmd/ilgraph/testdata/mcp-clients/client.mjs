// Drives ilgraph's MCP server with the official TypeScript SDK's client, the
// reference client that many hosts build on, and prints a JSON report on
// stdout for cmd/ilgraph/mcp_clients_test.go to check. It reads a plan as JSON on stdin:
//
//   {"transport": "http", "url": "http://127.0.0.1:PORT/mcp",
//    "calls": [{"tool": "get_incident", "args": {"id": "IL-0282"}}, …]}
//   {"transport": "stdio", "command": "/path/to/ilgraph", "args": ["mcp"],
//    "env": {"NEO4J_URI": "bolt://…", "ILGRAPH_TOKEN": "ilg_…"}, "calls": […]}
//
// Over HTTP a plan's "token", when given, is sent as Authorization: Bearer,
// as a host configured with the server's token sends it (over stdio the
// server acts as ILGRAPH_TOKEN's principal).
//
// and reports what the client saw: whether tools/list parsed, each tool's
// schemas checked against JSON Schema 2020-12 (the dialect of the MCP
// specification), and for each call whether it threw (a JSON-RPC error, or
// the SDK refusing structured content that does not match the tool's output
// schema), its isError, text and structured content, and that content
// checked again with ajv. It judges nothing: the Go test does.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import Ajv2020 from "ajv/dist/2020.js";

const plan = JSON.parse(readFileSync(0, "utf8"));

function errorOf(e) {
  return { name: e?.name ?? "Error", code: e?.code ?? null, message: String(e?.message ?? e) };
}

// sdkValidatesOutput confirms that this SDK's callTool checks structured
// content against the tool's output schema, which the report relies on: a
// server of the SDK's own answers content that breaks its schema, and the
// call must throw.
async function sdkValidatesOutput() {
  const server = new Server({ name: "self-check", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{
      name: "count",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async () => ({
    content: [{ type: "text", text: "n is not a number" }],
    structuredContent: { n: "not a number" },
  }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "self-check", version: "1" });
  await client.connect(b);
  await client.listTools();
  try {
    await client.callTool({ name: "count", arguments: {} });
    return { ok: false, message: "callTool accepted structured content that breaks the output schema" };
  } catch (e) {
    return { ok: /output schema/.test(String(e?.message)), message: String(e?.message ?? e) };
  } finally {
    await client.close();
  }
}

// A second, independent check of structured content: ajv with the 2020-12
// dialect, also checking each schema against the dialect's meta-schema.
const ajv = new Ajv2020({ strict: false, allErrors: true });
function compile(schema) {
  try {
    return { validate: ajv.compile(schema), errors: [] };
  } catch (e) {
    return { validate: null, errors: [String(e?.message ?? e)] };
  }
}
const ajvErrors = (validate) => (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);

// tamper returns a copy of content with one required property given a value
// of another JSON type, which the output schema must refuse: a schema that
// takes it checks nothing.
function tamper(schema, content) {
  for (const name of schema.required ?? []) {
    if (!schema.properties?.[name]?.type || !(name in content)) continue;
    const v = content[name];
    return { property: name, content: { ...content, [name]: typeof v === "string" ? 12345 : "tampered" } };
  }
  return null;
}

const report = {
  sdkVersion: JSON.parse(readFileSync(new URL("node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url), "utf8")).version,
  transport: plan.transport,
  sdkValidatesOutput: await sdkValidatesOutput(),
  connectError: null,
  listError: null,
  server: null,
  tools: [],
  calls: [],
};

let transport;
let stderr = "";
if (plan.transport === "http") {
  const headers = plan.token ? { Authorization: `Bearer ${plan.token}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers } });
} else if (plan.transport === "stdio") {
  transport = new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, stderr: "pipe" });
  transport.stderr?.on("data", (d) => { stderr = (stderr + d).slice(-4000); });
} else {
  throw new Error(`transport: ${JSON.stringify(plan.transport)} is not http or stdio`);
}
const client = new Client({ name: "ilgraph-ts-sdk-test", version: "1" });
try {
  await client.connect(transport);
  report.server = { ...client.getServerVersion(), instructions: client.getInstructions() ?? "" };
} catch (e) {
  report.connectError = errorOf(e);
}

if (!report.connectError) {
  const schemas = new Map();
  try {
    const { tools } = await client.listTools();
    for (const t of tools) {
      const input = compile(t.inputSchema);
      const output = t.outputSchema ? compile(t.outputSchema) : { validate: null, errors: ["no output schema"] };
      schemas.set(t.name, { schema: t.outputSchema, validate: output.validate });
      report.tools.push({ name: t.name, inputSchemaErrors: input.errors, outputSchemaErrors: output.errors });
    }
  } catch (e) {
    report.listError = errorOf(e);
  }
  for (const call of plan.calls ?? []) {
    const r = { tool: call.tool, args: call.args, threw: null, isError: null, text: "", structuredContent: null, ajvErrors: null, tampered: null };
    try {
      const res = await client.callTool({ name: call.tool, arguments: call.args });
      r.isError = res.isError === true;
      r.text = (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
      r.structuredContent = res.structuredContent ?? null;
      const s = schemas.get(call.tool);
      if (r.structuredContent !== null && s?.validate) {
        r.ajvErrors = s.validate(r.structuredContent) ? [] : ajvErrors(s.validate);
        const t = tamper(s.schema, r.structuredContent);
        if (t) {
          r.tampered = { property: t.property, refused: !s.validate(t.content) };
        }
      }
    } catch (e) {
      r.threw = errorOf(e);
    }
    report.calls.push(r);
  }
}
await client.close().catch(() => {});
report.serverStderr = stderr;
process.stdout.write(JSON.stringify(report) + "\n");
