// The floor the benchmarks compare against: the least a Node reverse proxy does per request (node:http server, request
// body read whole, undici to the upstream), with no auth, no rules, no accounting and no events. Prints "BARE <url>"
// when it listens. Arguments: the upstream origin, then `buffered` (the MCP benchmark: the answer read whole and
// written back with its length) or `stream` (the LLM benchmark: the answer streamed back chunk by chunk).
/* global Buffer */
import { createServer } from 'node:http';
import { Pool } from 'undici';

const upstream = new Pool(process.argv[2], { connections: 256 });
const streaming = process.argv[3] === 'stream';
const DROP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

function copyHeaders(from, keepLength) {
  const h = {};
  for (const [k, v] of Object.entries(from)) if (!DROP.has(k) || (keepLength && k === 'content-length')) h[k] = v;
  return h;
}

function sendBuffered(up, res) {
  const out = [];
  up.body.on('data', (c) => out.push(c));
  up.body.on('end', () => {
    const body = Buffer.concat(out);
    res.writeHead(up.statusCode, { ...copyHeaders(up.headers, false), 'content-length': body.length }).end(body);
  });
}

function sendStreamed(up, res) {
  res.writeHead(up.statusCode, copyHeaders(up.headers, true));
  up.body.on('data', (c) => {
    if (!res.write(c)) {
      up.body.pause();
      res.once('drain', () => up.body.resume());
    }
  });
  up.body.on('end', () => res.end());
  up.body.on('error', () => res.destroy());
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    try {
      const up = await upstream.request({ path: req.url, method: req.method, headers: copyHeaders(req.headers, false), body: Buffer.concat(chunks) });
      (streaming ? sendStreamed : sendBuffered)(up, res);
    } catch {
      res.writeHead(502).end();
    }
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`BARE http://127.0.0.1:${server.address().port}\n`));
