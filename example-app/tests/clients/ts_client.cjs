// The official MCP TypeScript SDK's client against a toolcall server: lists the tools
// (which loads their output schemas, as a host does), then makes each call given and
// prints what the SDK handed back, or the exception it threw, as one JSON array.
//
//   node ts_client.cjs NODE_PREFIX URL TOKEN CALLS_JSON
//
// NODE_PREFIX is the folder whose node_modules holds @modelcontextprotocol/sdk
// (scripts/install-clients puts it outside the checkout). CALLS_JSON is an array of
// {"name": .., "arguments": {..}}. Exit 0 when every call was made, whatever it gave.
"use strict";
const path = require("node:path");
const { createRequire } = require("node:module");

async function main() {
  const [prefix, url, token, callsJson] = process.argv.slice(2);
  const sdk = createRequire(path.join(prefix, "package.json"));
  const { Client } = sdk("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = sdk("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "toolcall-ts-check", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  const seen = [];
  for (const call of JSON.parse(callsJson)) {
    try {
      const result = await client.callTool({ name: call.name, arguments: call.arguments });
      seen.push({ name: call.name, result });
    } catch (error) {
      seen.push({ name: call.name, threw: String(error && error.message ? error.message : error) });
    }
  }
  await client.close();
  process.stdout.write(JSON.stringify(seen));
}

main().catch((error) => {
  process.stderr.write(`ts_client: ${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
