// The floor the MCP benchmark compares against: the least a Node reverse proxy does per request (node:http server,
// undici to the upstream, whole body read and written back), with no auth, no rules and no events. Prints
// "BARE <url>" when it listens. Argument: the upstream origin.
/* global Buffer */
import { createServer } from 'node:http';
import { Pool } from 'undici';

const upstream = new Pool(process.argv[2], { connections: 256 });
const DROP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    try {
      const headers = {};
      for (const [k, v] of Object.entries(req.headers)) if (!DROP.has(k)) headers[k] = v;
      const up = await upstream.request({ path: req.url, method: req.method, headers, body: Buffer.concat(chunks) });
      const out = [];
      up.body.on('data', (c) => out.push(c));
      up.body.on('end', () => {
        const body = Buffer.concat(out);
        const h = {};
        for (const [k, v] of Object.entries(up.headers)) if (!DROP.has(k)) h[k] = v;
        h['content-length'] = body.length;
        res.writeHead(up.statusCode, h).end(body);
      });
    } catch {
      res.writeHead(502).end();
    }
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`BARE http://127.0.0.1:${server.address().port}\n`));
