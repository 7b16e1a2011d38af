// A real OpenID provider for toolcall-mcp's OAuth end-to-end tests: npm `oidc-provider`
// (installed by scripts/install-clients; its node_modules directory in OIDC_MODULES), on
// 127.0.0.1 at OIDC_PORT, else a port the OS picks. It prints `issuer URL` as its first
// line. toolcall-mcp's README (OAuth, "Trying it locally") runs it by hand.
//
// Client credentials (RFC 6749 §4.4) with resource indicators (RFC 8707): a token is
// asked for one resource, the MCP server's URI, and names it as its audience. The
// resources are given as JSON in OIDC_RESOURCES: {"URI": {"format": "jwt" | "opaque",
// "scope": "notes:read notes:write"}}; a JWT access token is signed RS256 with the
// provider's keys, published at its jwks_uri; an opaque one is checked through its
// introspection endpoint, and may be revoked (RFC 7009, `/token/revocation`) by the client
// it was issued to.
//
// Clients (secret = id + "-secret"): `mcp-writer` (notes:read notes:write), `mcp-reader`
// (notes:read), `mcp-resource-server` (may introspect; asks for no tokens).
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = process.env.OIDC_MODULES;
if (!modules) {
  console.error('OIDC_MODULES: the node_modules directory holding oidc-provider');
  process.exit(2);
}
const { default: Provider, errors } = await import(
  pathToFileURL(path.join(modules, 'oidc-provider', 'lib', 'index.js')).href
);
const resources = JSON.parse(process.env.OIDC_RESOURCES || '{}');

const server = http.createServer();
await new Promise((resolve) => server.listen(Number(process.env.OIDC_PORT || 0), '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const client = (id, scope) => ({
  client_id: id,
  client_secret: `${id}-secret`,
  grant_types: scope ? ['client_credentials'] : [],
  redirect_uris: [],
  response_types: [],
  ...(scope ? { scope } : {}),
});

const provider = new Provider(issuer, {
  clients: [
    client('mcp-writer', 'notes:read notes:write'),
    client('mcp-reader', 'notes:read'),
    client('mcp-resource-server', ''),
  ],
  scopes: ['notes:read', 'notes:write'],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true, allowedPolicy: async () => true },
    revocation: {
      enabled: true,
      allowedPolicy: async (ctx, client, token) => token.clientId === client.clientId,
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        const info = resources[indicator];
        if (!info) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
        return {
          scope: info.scope,
          audience: indicator,
          accessTokenTTL: 300,
          accessTokenFormat: info.format,
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
});
provider.on('server_error', (ctx, error) => console.error('oidc-provider:', error));
server.on('request', provider.callback());
console.log(`issuer ${issuer}`);
