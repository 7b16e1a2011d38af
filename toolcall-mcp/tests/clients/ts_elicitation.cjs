// The official MCP TypeScript SDK's client answering a toolcall server's questions: it
// declares elicitation (form and URL modes, or form only), answers every
// `elicitation/create` with ACTION (accepting a form with the name "Ada"), calls each tool
// given, and prints the protocol version it spoke, what the tools returned and what it was
// asked, as one JSON object.
//
//   node ts_elicitation.cjs NODE_PREFIX URL MODES ACTION TOOLS
//
// NODE_PREFIX is the folder whose node_modules holds @modelcontextprotocol/sdk
// (scripts/install-clients). MODES is "form,url" or "form". ACTION is accept, decline or
// cancel. TOOLS is a comma-separated list of tools to call, without arguments.
"use strict";
const path = require("node:path");
const { createRequire } = require("node:module");

async function main() {
  const [prefix, url, modes, action, tools] = process.argv.slice(2);
  const sdk = createRequire(path.join(prefix, "package.json"));
  const { Client } = sdk("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = sdk("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { ElicitRequestSchema } = sdk("@modelcontextprotocol/sdk/types.js");
  const elicitation = {};
  for (const mode of modes.split(",")) elicitation[mode] = {};
  const client = new Client({ name: "toolcall-ts-elicitation", version: "1.0.0" }, { capabilities: { elicitation } });
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    if (action === "accept" && request.params.mode !== "url") {
      return { action, content: { name: "Ada" } };
    }
    return { action };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const results = [];
  for (const name of tools.split(",")) {
    try {
      results.push({ name, result: await client.callTool({ name, arguments: {} }) });
    } catch (error) {
      results.push({ name, threw: String(error && error.message ? error.message : error) });
    }
  }
  const version = client.transport && client.transport.protocolVersion;
  await client.close();
  process.stdout.write(JSON.stringify({ version, results, asked }));
}

main().catch((error) => {
  process.stderr.write(`ts_elicitation: ${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
