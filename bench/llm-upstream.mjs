/* global setTimeout, Buffer */
// The LLM benchmark's upstream: a loopback server speaking the OpenAI chat-completions wire format (JSON, and SSE
// with `stream: true`, usage in the final chunk when stream_options.include_usage is set, like the real API).
// Prints "UPSTREAM <url>" when it listens. Options: --chunks N (SSE content chunks, default 20), --gap-ms N (delay
// between chunks, default 1; the first chunk is sent at once).
import { createServer } from 'node:http';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const CHUNKS = opt('chunks', 20);
const GAP_MS = opt('gap-ms', 1);

const completion = (model) => JSON.stringify({
  id: 'chatcmpl-bench', object: 'chat.completion', created: 1741570283, model,
  choices: [{ index: 0, message: { role: 'assistant', content: 'The capital of France is Paris.', refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1117, completion_tokens: 46, total_tokens: 1163, prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
  service_tier: 'default', system_fingerprint: 'fp_06737a9306',
});

const chunk = (model, delta, extra = '') => `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1744136814,"model":"${model}","system_fingerprint":"fp_b376dfbbd5","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":null}]${extra}}\n\n`;

async function stream(res, model, includeUsage) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(chunk(model, '{"role":"assistant","content":""}'));
  for (let i = 0; i < CHUNKS; i++) {
    if (GAP_MS) await new Promise((r) => setTimeout(r, GAP_MS));
    if (res.destroyed) return;
    res.write(chunk(model, `{"content":"tok${i} "}`));
  }
  if (includeUsage) res.write(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1744136814,"model":"${model}","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":${CHUNKS},"total_tokens":${19 + CHUNKS}}}\n\n`);
  res.end('data: [DONE]\n\n');
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch { /* not JSON */ }
    const model = typeof body.model === 'string' ? body.model : 'gpt-4o-mini';
    if (body.stream === true) {
      stream(res, model, body.stream_options?.include_usage === true).catch(() => res.destroy());
      return;
    }
    const out = completion(model);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`UPSTREAM http://127.0.0.1:${server.address().port}\n`));
