// Starts a provider executable the way terraform does (go-plugin's environment: the magic cookie, the protocol
// versions offered, the client certificate for mutual TLS) and times it to its handshake line on stdout, the line
// terraform waits for before it makes any call.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';

// The value terraform sets; provider/src/protocol/handshake.ts checks it.
export const MAGIC_COOKIE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';
export const HANDSHAKE_LINE = /^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|[A-Za-z0-9+/]+$/;

/** A throwaway client certificate in PEM, standing in for the one terraform generates per run. */
export function clientCertificate() {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-cert-'));
  try {
    const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl req failed: ${r.error?.message ?? r.stderr}`);
    return readFileSync(join(dir, 'cert.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The environment terraform gives a plugin, over `base` (which sets PATH and nothing else by default). */
export function pluginEnv(certificate, base = { PATH: '' }) {
  return { ...base, TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE, PLUGIN_PROTOCOL_VERSIONS: '6', PLUGIN_MIN_PORT: '10000', PLUGIN_MAX_PORT: '25000', PLUGIN_CLIENT_CERT: certificate };
}

/** Runs `command` until its first stdout line, then stops it; returns the line, the time to it and stderr. */
export function timeHandshake(command, args, env, timeoutMs = 20_000) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`no handshake line within ${timeoutMs} ms; stderr:\n${stderr}`)); }, timeoutMs);
    child.stderr.on('data', (c) => { stderr += c; });
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('exit', (code) => { if (!stdout.includes('\n')) { clearTimeout(timer); reject(new Error(`exited (${code}) before the handshake; stderr:\n${stderr}`)); } });
    child.stdout.on('data', (c) => {
      stdout += c;
      const nl = stdout.indexOf('\n');
      if (nl < 0) return;
      const ms = performance.now() - started;
      clearTimeout(timer);
      child.kill('SIGTERM');
      child.once('exit', () => resolve({ line: stdout.slice(0, nl), ms, stderr }));
    });
  });
}

/** The median time to the handshake over `runs` starts. */
export async function medianHandshakeMs(command, args, env, runs = 7) {
  const times = [];
  for (let i = 0; i < runs; i++) times.push((await timeHandshake(command, args, env)).ms);
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
