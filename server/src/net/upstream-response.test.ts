// The dispatch-based upstream response against real node:http servers on port 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, errors } from 'undici';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { sendUpstream } from './upstream-response.ts';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  const sockets = new Set<unknown>();
  server.on('connection', (s) => sockets.add(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = new Agent();
  return {
    origin, agent, sockets,
    async close() {
      await agent.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

test('status, lower-case headers (repeats as arrays, __proto__ as a plain key) and the whole body', async () => {
  const s = await serve((req, res) => {
    res.writeHead(201, [['X-One', 'a'], ['Set-Cookie', 'c1'], ['Set-Cookie', 'c2'], ['__proto__', 'p'], ['Content-Type', 'application/json']]);
    res.end('{"ok":true}');
  });
  try {
    const up = await sendUpstream(s.agent, { origin: s.origin, path: '/', method: 'POST', body: '{}' });
    assert.equal(up.statusCode, 201);
    assert.equal(up.headers['x-one'], 'a');
    assert.deepEqual(up.headers['set-cookie'], ['c1', 'c2']);
    assert.equal(up.headers['__proto__'], 'p');
    assert.equal(Object.getPrototypeOf(up.headers), Object.prototype, 'the prototype was not replaced');
    assert.equal(({} as Record<string, unknown>).p, undefined);
    assert.equal((await up.readAll(1024))!.toString(), '{"ok":true}');
  } finally {
    await s.close();
  }
});

test('readAll over the cap returns undefined and closes the upstream connection without reading on', async () => {
  let written = 0;
  const closed = deferred();
  const s = await serve((req, res) => {
    res.writeHead(200);
    res.on('close', () => closed.resolve());
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const pump = () => {
      while (written < 64 * 1024 * 1024 && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  try {
    const up = await sendUpstream(s.agent, { origin: s.origin, path: '/', method: 'GET' });
    assert.equal(await up.readAll(100 * 1024), undefined);
    assert.ok(up.destroyed);
    await closed.promise;
    assert.ok(written < 64 * 1024 * 1024, `the server stopped early (${written} bytes written)`);
  } finally {
    await s.close();
  }
});

/**
 * A server that sends 64 MB of a known byte pattern as fast as its socket takes it, and a check of what a reader got:
 * `held()` is true once the server has sent nothing for 200 ms while blocked (nobody reads).
 */
async function patternServer() {
  const total = 64 * 1024 * 1024;
  const size = 16 * 1024;
  const pattern = Buffer.alloc(size + 251);
  for (let i = 0; i < pattern.length; i++) pattern[i] = i % 251;
  let written = 0;
  let blocked = false;
  const s = await serve((req, res) => {
    res.writeHead(200);
    const pump = () => {
      blocked = false;
      while (written < total) {
        const c = pattern.subarray(written % 251, (written % 251) + size);
        written += c.length;
        if (!res.write(c)) {
          blocked = true;
          return void res.once('drain', pump);
        }
      }
      res.end();
    };
    pump();
  });
  let got = 0;
  return {
    s, total,
    get written() { return written; },
    get got() { return got; },
    /** Checks a chunk against the pattern at the offset reached so far, and counts it. */
    take(c: Buffer): void {
      for (let i = 0; i < c.length; i += 4093) assert.equal(c[i], (got + i) % 251);
      got += c.length;
    },
    // The kernel grows the socket buffers (TCP autotuning) after the first stall, so the server may drain a few
    // times before it stops for good: wait for 200 ms in which nothing more is sent while nobody reads.
    async held(what: string): Promise<void> {
      await eventually(async () => {
        const before = written;
        await sleep(200);
        return blocked && written === before;
      }, { what });
      assert.ok(written < total, `only what the socket buffers hold was sent (${written} bytes)`);
    },
  };
}

test('chunks() delivers every byte in order and pauses the upstream while the consumer does not read', async () => {
  const p = await patternServer();
  try {
    const up = await sendUpstream(p.s.agent, { origin: p.s.origin, path: '/', method: 'GET' });
    await p.held('the server held back while nobody reads');
    for await (const c of up.chunks()) p.take(c);
    assert.equal(p.got, p.total);
  } finally {
    await p.s.close();
  }
});

test('writeTo() hands over every byte in order, pauses the upstream while the sink is full, and reads on after resume()', async () => {
  const p = await patternServer();
  try {
    const up = await sendUpstream(p.s.agent, { origin: p.s.origin, path: '/', method: 'GET' });
    let full = true;
    let settled = false;
    const done = up.writeTo((c) => {
      p.take(c);
      return !full;
    }).finally(() => { settled = true; });
    await p.held('the server held back while the sink is full');
    assert.ok(p.got < p.total && !settled, `the sink took ${p.got} bytes and writeTo is still waiting`);
    full = false;
    up.resume();
    await done;
    assert.equal(p.got, p.total);
  } finally {
    await p.s.close();
  }
});

/** A server that starts an event stream, sends one event and stays open; `closed` resolves when its side closes. */
async function oneEventServer() {
  const closed = deferred();
  const s = await serve((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: first\n\n');
    res.on('close', () => closed.resolve());
  });
  return { s, closed };
}

test('a sink that throws fails writeTo() with its error and ends the upstream exchange', async () => {
  const { s, closed } = await oneEventServer();
  try {
    const up = await sendUpstream(s.agent, { origin: s.origin, path: '/', method: 'GET' });
    await assert.rejects(up.writeTo(() => { throw new Error('sink broke'); }), /sink broke/);
    assert.ok(up.destroyed);
    await closed.promise;
  } finally {
    await s.close();
  }
});

test('destroy() while writeTo() waits ends it and the upstream exchange', async () => {
  const { s, closed } = await oneEventServer();
  try {
    const up = await sendUpstream(s.agent, { origin: s.origin, path: '/', method: 'GET' });
    const seen: string[] = [];
    await up.writeTo((c) => {
      seen.push(c.toString());
      setImmediate(() => up.destroy());
      return true;
    });
    assert.deepEqual(seen, ['data: first\n\n']);
    await closed.promise;
  } finally {
    await s.close();
  }
});

test('discard() drops the body and keeps the connection for the next request; destroy() closes it', async () => {
  const s = await serve((req, res) => {
    res.writeHead(202);
    res.end('ignored body');
  });
  try {
    const a = await sendUpstream(s.agent, { origin: s.origin, path: '/', method: 'POST', body: 'x' });
    a.discard();
    await eventually(() => { const st = s.agent.stats[s.origin]; return st && 'free' in st && st.free === 1; }, { what: 'the connection to be free again' });
    const b = await sendUpstream(s.agent, { origin: s.origin, path: '/', method: 'POST', body: 'y' });
    assert.equal((await b.readAll(100))!.toString(), 'ignored body');
    assert.equal(s.sockets.size, 1, 'one keep-alive connection served both');
  } finally {
    await s.close();
  }
});

test('destroy() during a stream ends the upstream exchange, and the stream ends for the consumer', async () => {
  const { s, closed } = await oneEventServer();
  try {
    const up = await sendUpstream(s.agent, { origin: s.origin, path: '/', method: 'GET' });
    const seen: string[] = [];
    for await (const c of up.chunks()) {
      seen.push(c.toString());
      up.destroy();
    }
    assert.deepEqual(seen, ['data: first\n\n']);
    await closed.promise;
  } finally {
    await s.close();
  }
});

test('an upstream that dies mid-body fails readAll, chunks() and writeTo(); a silent one fails with the headers timeout', async () => {
  const s = await serve((req, res) => {
    if (req.url === '/silent') return;
    res.writeHead(200, { 'content-length': '100' });
    res.write('partial');
    setTimeout(() => res.socket?.destroy(), 20); // dies after its partial body has gone out
  });
  try {
    const a = await sendUpstream(s.agent, { origin: s.origin, path: '/', method: 'GET' });
    await assert.rejects(a.readAll(1000));
    const b = await sendUpstream(s.agent, { origin: s.origin, path: '/', method: 'GET' });
    await assert.rejects((async () => { for await (const _ of b.chunks()) void _; })());
    const c = await sendUpstream(s.agent, { origin: s.origin, path: '/', method: 'GET' });
    let got = '';
    await assert.rejects(c.writeTo((chunk) => { got += chunk.toString(); return true; }));
    assert.equal(got, 'partial', 'what arrived before the upstream died was handed over');
    // The same when the upstream had already died before writeTo began.
    const d = await sendUpstream(s.agent, { origin: s.origin, path: '/', method: 'GET' });
    await eventually(() => d.destroyed, { what: 'the upstream to fail' });
    got = '';
    await assert.rejects(d.writeTo((chunk) => { got += chunk.toString(); return true; }));
    assert.equal(got, 'partial', 'what arrived before the failure was handed over first');
    await assert.rejects(sendUpstream(s.agent, { origin: s.origin, path: '/silent', method: 'GET', headersTimeout: 100 }), errors.HeadersTimeoutError);
  } finally {
    await s.close();
  }
});
