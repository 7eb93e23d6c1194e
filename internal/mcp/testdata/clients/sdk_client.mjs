// The official TypeScript SDK client, driving `ringfence mcp` for the Go
// test cmd/ringfence/mcp_clients_test.go. One argument: a JSON plan
//   {"transport": "stdio", "command": "...", "args": [...], "env": {...}}
//   {"transport": "http", "url": "...", "token": "..."}
// plus "calls": [[tool, arguments], ...] and "note" (what the person
// answers to every approval: approve once, with that note).
// It prints one JSON report on stdout: the instructions, the tools as
// listed, each call's result (or the error the SDK raised — callTool
// validates structured content against the tool's output schema), and
// every approval form it was shown.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const plan = JSON.parse(process.argv[2]);
const client = new Client(
  { name: "ringfence-ts-sdk-test", version: "1" },
  { capabilities: { elicitation: { form: {} } } },
);
const forms = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  forms.push(req.params);
  return { action: "accept", content: { decision: "approve-once", note: plan.note } };
});

let transport;
if (plan.transport === "stdio") {
  transport = new StdioClientTransport({
    command: plan.command, args: plan.args,
    env: { ...process.env, ...plan.env }, stderr: "inherit",
  });
} else {
  transport = new StreamableHTTPClientTransport(new URL(plan.url), {
    requestInit: { headers: { Authorization: `Bearer ${plan.token}` } },
  });
}
await client.connect(transport);

const report = {
  server: client.getServerVersion(),
  instructions: client.getInstructions() ?? null,
  tools: (await client.listTools()).tools,
  calls: [],
};
for (const [name, args] of plan.calls) {
  try {
    report.calls.push({ name, result: await client.callTool({ name, arguments: args }) });
  } catch (e) {
    report.calls.push({ name, error: String(e && e.message ? e.message : e) });
  }
}
report.forms = forms;
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
