// Sends generated requests and checks each answer, keeping count. State: the database is fingerprinted after every
// accepted change (the new baseline) and, before a change-capable request (anything but GET), compared with that
// baseline when requests were made since: a refused request costs one fingerprint at most, a run of GETs one in all.
// An accepted change also refreshes the fuzzer's view of the ids and credentials.
import assert from 'node:assert/strict';
import type { TestApp } from '@tollgate/testkit/harness.ts';
import { SESSION_COOKIE } from '../../server/src/identity/session-cookie.ts';
import { createSession } from '../../server/src/identity/sessions.ts';
import { unixNow } from '../../server/src/services.ts';
import type { RawRequest, RawResponse, httpClient } from './client.ts';
import { answerProblems, routeOf } from './checks.ts';
import { changedTables, type Fingerprinter } from './fingerprint.ts';
import { refKindOf, type Credential, type FuzzRequest } from './request-arbitrary.ts';
import { fillPath, type FuzzRoute } from './routes.ts';
import { replenish } from './seed.ts';
import type { World } from './world.ts';

type Client = ReturnType<typeof httpClient>;

export class Stats {
  requests = 0;
  fingerprints = 0;
  accepted = 0;
  fingerprintMs = 0;
  requestMs = 0;
  readonly byStatus = new Map<number, number>();
  readonly okByRoute = new Map<string, number>();
  readonly messages = new Map<string, number>();
  readonly started = Date.now();

  count(route: string, res: RawResponse): void {
    this.requests++;
    this.byStatus.set(res.status, (this.byStatus.get(res.status) ?? 0) + 1);
    if (res.status < 300) this.okByRoute.set(route, (this.okByRoute.get(route) ?? 0) + 1);
    else {
      const msg = (() => { try { return String(JSON.parse(res.text).error); } catch { return res.text; } })();
      const key = `${res.status} ${msg.replace(/\d+/g, 'N').slice(0, 100)}`;
      this.messages.set(key, (this.messages.get(key) ?? 0) + 1);
    }
  }

  report(routes: FuzzRoute[]): string {
    const s = (Date.now() - this.started) / 1000;
    const hist = [...this.byStatus].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}: ${v}`).join(', ');
    const never = routes.filter((r) => !this.okByRoute.has(r.name)).map((r) => r.name);
    const top = [...this.messages].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([m, n]) => `  ${String(n).padStart(6)}  ${m}`).join('\n');
    return [
      `management API fuzz: ${this.requests} requests in ${s.toFixed(1)} s (${(this.requests / s).toFixed(0)} requests/s), ${routes.length} routes`,
      `status: ${hist}`,
      `accepted changes: ${this.accepted}; state fingerprints: ${this.fingerprints} (${this.fingerprintMs.toFixed(0)} ms); time in requests: ${this.requestMs.toFixed(0)} ms`,
      `routes never answered 2xx: ${never.length ? never.join(', ') : 'none'}`,
      `most frequent refusals:\n${top}`,
    ].join('\n');
  }
}

function snippet(s: string | undefined, n = 400): string {
  if (s === undefined) return '(none)';
  return s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s;
}

export interface FuzzerOptions {
  t: TestApp;
  routes: FuzzRoute[];
  world: World;
  fingerprint: Fingerprinter;
  client: Client;
  /** What `replenish` needs to put back deleted objects. */
  upstream: { upstreamUrl: string; providerKey: string };
}

export class Fuzzer {
  private baseline: Record<string, string> | undefined;
  private readonly pending: string[] = [];
  private lastReplenish = -Infinity;
  readonly stats = new Stats();

  private readonly t: TestApp;
  private readonly routes: FuzzRoute[];
  private readonly world: World;
  private readonly fingerprint: Fingerprinter;
  private readonly client: Client;
  private readonly upstream: { upstreamUrl: string; providerKey: string };

  constructor(o: FuzzerOptions) {
    ({ t: this.t, routes: this.routes, world: this.world, fingerprint: this.fingerprint, client: this.client, upstream: this.upstream } = o);
  }

  private credentialHeaders(c: Credential): Record<string, string> {
    const { pat, cookie, clientKey } = this.world.creds;
    switch (c) {
      case 'pat': return { authorization: `Bearer ${pat}` };
      case 'session': return { cookie };
      case 'none': return {};
      case 'junk': return { authorization: 'Bearer \u00ff\u00fe not a token' };
      case 'unknown-pat': return { authorization: `Bearer svc_pat_${'A'.repeat(43)}` };
      case 'client-key': return { authorization: `Bearer ${clientKey}` };
      case 'pat-and-cookie': return { authorization: `Bearer ${pat}`, cookie };
      case 'basic': return { authorization: 'Basic dXNlcjpwYXNz' };
    }
  }

  private pathOf(req: FuzzRequest): { path: string; otherRef: boolean } {
    const values: Record<string, string> = {};
    const picked: Record<string, { owner: 'own' | 'other'; index: number }> = {};
    req.route.params.forEach((name, i) => {
      const p = req.params[i]!;
      if (p.kind === 'raw') { values[name] = p.value; return; }
      const kind = refKindOf(req.route, name, p.pat);
      const list = (p.owner === 'own' ? this.world.own : this.world.other)[kind];
      values[name] = this.world.resolve(p.owner, kind, p.n);
      picked[name] = { owner: p.owner, index: list.length ? p.n % list.length : -1 };
    });
    if (req.coherent) this.makeCoherent(values, picked);
    const o = this.world.other;
    const foreign = new Set([...o.mcp, ...o.llm, ...o.key, ...o.pat, ...o.res, ...o.log]);
    const otherRef = Object.values(values).some((v) => foreign.has(v));
    const q = req.query.map(([k, v]) => `${k}=${v}`).join('&');
    return { path: fillPath(req.route.pattern, values) + (q ? `?${q}` : ''), otherRef };
  }

  /** A resource (or log) and the server (or proxy) it belongs to, instead of two unrelated ids. */
  private makeCoherent(values: Record<string, string>, picked: Record<string, { owner: 'own' | 'other'; index: number }>): void {
    for (const [child, parent] of [['rid', 'resMcp'], ['logId', 'logLlm']] as const) {
      const c = picked[child];
      if (!c || c.index < 0 || !('id' in values)) continue;
      values.id = (c.owner === 'own' ? this.world.own : this.world.other)[parent][c.index]!;
    }
  }

  toRaw(req: FuzzRequest): { raw: RawRequest; otherRef: boolean } {
    const { path, otherRef } = this.pathOf(req);
    const headers: Record<string, string> = { ...req.headers, ...this.credentialHeaders(req.credential) };
    let body: string | undefined;
    if (req.body.kind === 'json') body = this.world.resolveJson(req.body.value);
    else if (req.body.kind === 'raw') body = this.world.resolveText(req.body.text);
    if (req.contentType && (body !== undefined || req.credential === 'junk')) headers['content-type'] = req.contentType;
    return { raw: { method: req.route.method, path, headers, body: body === undefined ? undefined : Buffer.from(body) }, otherRef };
  }

  private async timedFingerprint(): Promise<Record<string, string>> {
    const started = performance.now();
    const f = await this.fingerprint();
    this.stats.fingerprintMs += performance.now() - started;
    return f;
  }

  private async takeBaseline(): Promise<void> {
    this.baseline = await this.timedFingerprint();
    this.stats.fingerprints++;
    this.pending.length = 0;
  }

  /** Every request since the baseline was refused (or was a GET): the database must be exactly as it was. */
  private async checkUnchanged(): Promise<void> {
    if (!this.baseline) return this.takeBaseline();
    if (this.pending.length === 0) return;
    const now = await this.timedFingerprint();
    this.stats.fingerprints++;
    const changed = changedTables(this.baseline, now);
    assert.deepEqual(changed, [], `state changed (${changed.join(', ')}) although none of these requests was accepted:\n${this.pending.join('\n')}`);
    this.pending.length = 0;
  }

  /** Sends one request and checks its answer; throws (an assertion) on the first problem. */
  async run(req: FuzzRequest): Promise<void> {
    const mutating = req.route.method !== 'GET';
    if (mutating) await this.checkUnchanged();
    const { raw, otherRef } = this.toRaw(req);
    const started = performance.now();
    const res = await this.client.send(raw);
    this.stats.requestMs += performance.now() - started;
    const reached = routeOf(this.routes, raw.method, raw.path);
    this.stats.count(reached?.name ?? `(no route) ${req.route.name}`, res);
    const ok = res.status >= 200 && res.status < 300;
    const problems = [...answerProblems(reached, res), ...(ok ? this.tenantProblems(req, reached, raw, otherRef) : [])];
    const summary = `${raw.method} ${snippet(raw.path, 200)} [${req.credential}] body=${snippet(raw.body?.toString('utf8'))} → ${res.status} ${snippet(res.text, 300)}`;
    assert.deepEqual(problems, [], summary);
    if (ok && mutating) await this.accepted(reached, res);
    else this.pending.push(summary);
  }

  /** An accepted request must not have reached another user's objects, by path or by a proxy id in its body. */
  private tenantProblems(req: FuzzRequest, reached: FuzzRoute | undefined, raw: RawRequest, otherRef: boolean): string[] {
    const out: string[] = [];
    if (otherRef && reached === req.route) out.push('another user\'s object was reached through a path parameter');
    if (raw.method !== 'GET' && this.bodyNamesOtherProxy(raw.body)) out.push('another user\'s proxy id in the body was accepted');
    return out;
  }

  private bodyNamesOtherProxy(body: Buffer | undefined): boolean {
    if (!body) return false;
    const text = body.toString('utf8');
    return [...this.world.other.mcp, ...this.world.other.llm, ...this.world.other.res].some((id) => text.includes(id));
  }

  /** After an accepted change: a new baseline is due, ids may have changed, and so may the credentials. */
  private async accepted(reached: FuzzRoute | undefined, res: RawResponse): Promise<void> {
    this.stats.accepted++;
    const name = reached?.name;
    if (name === 'POST /api/profile/token') this.world.creds.pat = (JSON.parse(res.text) as { token: string }).token;
    if (name === 'POST /api/2fa/setup') this.world.totpSecret = (JSON.parse(res.text) as { secret: string }).secret;
    const cookie = [res.headers['set-cookie'] ?? []].flat().map((c) => new RegExp(`^${SESSION_COOKIE}=([^;]+)`).exec(c)?.[1]).find(Boolean);
    if (name === 'POST /api/auth/login' && cookie) this.world.creds.cookie = `${SESSION_COOKIE}=${cookie}`;
    if (name === 'POST /api/auth/logout') await this.signInAgain();
    await this.world.refresh();
    // At most every 50 requests: put back what the fuzzer deleted, so nested routes keep real objects to work on.
    if (this.stats.requests - this.lastReplenish >= 50 && await replenish({ t: this.t, pat: this.world.creds.pat, ...this.upstream }, this.world.own)) {
      this.lastReplenish = this.stats.requests;
      await this.world.refresh();
    }
    await this.takeBaseline();
  }

  /**
   * A new dashboard session after a fuzzed logout, as after a complete sign-in (2FA challenge passed, in case the
   * fuzzer turned 2FA on). Made directly, not by signing in: the fuzzer's failed sign-ins may have locked the e-mail
   * out for five minutes (429), which is the API doing its job.
   */
  async signInAgain(): Promise<void> {
    const s = this.t.app.services;
    const session = await s.db.tx((q) => createSession(q, this.world.ownUserId, true, unixNow(s.clock)));
    this.world.creds.cookie = `${SESSION_COOKIE}=${session.token}`;
  }

  /** Whatever is still unchecked at the end. */
  async finish(): Promise<void> {
    await this.checkUnchanged();
  }
}
