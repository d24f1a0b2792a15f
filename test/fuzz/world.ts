// What the fuzzer knows about the server's state: the ids of the fuzzed user's objects and of another user's, read
// from the database after every accepted change, and the credentials requests can carry. Generated requests name
// ids by reference (`own mcp #3`), resolved when the request is sent, so a generated request stays meaningful while
// objects come and go.
import type { Queryable } from '../../server/src/db/db.ts';
import { codeAt } from '@tollgate/testkit/session.ts';

/** Starts a reference inside a generated string (a flag emoji: printable, and never followed by `ref:` by chance). */
export const REF = '\u{1F6A9}ref:';
const REF_PATTERN = /\u{1F6A9}ref:(own|other):(\w+):(\d+)/gu;

export type RefKind = 'mcp' | 'llm' | 'key' | 'pat' | 'res' | 'log' | 'tool' | 'totp';
export type Owner = 'own' | 'other';

export interface Ids {
  mcp: string[];
  llm: string[];
  key: string[];
  pat: string[];
  res: string[];
  /** The MCP server of each resource in `res`. */
  resMcp: string[];
  log: string[];
  /** The LLM proxy of each conversation log in `log`. */
  logLlm: string[];
  tool: string[];
}

/** A reference as it travels inside generated bodies: a string the sender replaces with a real id. */
export function ref(owner: Owner, kind: RefKind, n: number): string {
  return `${REF}${owner}:${kind}:${n}`;
}

async function idsOf(q: Queryable, userId: string): Promise<Ids> {
  const col = async (sql: string) => (await q.query(sql, [userId])).map((r) => String(Object.values(r)[0]));
  const res = await q.query<{ id: string; mcp_id: string }>(
    'SELECT r.id, r.mcp_id FROM mcp_resources r JOIN mcp_servers m ON m.id = r.mcp_id WHERE m.user_id = $1 ORDER BY r.id', [userId]);
  const logs = await q.query<{ id: string; llm_id: string }>(
    'SELECT l.id, l.llm_id FROM llm_conversation_logs l JOIN llm_proxies p ON p.id = l.llm_id WHERE p.user_id = $1 ORDER BY l.id', [userId]);
  return {
    mcp: await col('SELECT id FROM mcp_servers WHERE user_id = $1 ORDER BY id'),
    llm: await col('SELECT id FROM llm_proxies WHERE user_id = $1 ORDER BY id'),
    key: await col('SELECT c.id FROM credentials c JOIN consumers u ON u.id = c.consumer_id WHERE u.user_id = $1 AND NOT c.is_pat ORDER BY c.id'),
    pat: await col('SELECT c.id FROM credentials c JOIN consumers u ON u.id = c.consumer_id WHERE u.user_id = $1 AND c.is_pat'),
    res: res.map((r) => r.id),
    resMcp: res.map((r) => r.mcp_id),
    log: logs.map((r) => r.id),
    logLlm: logs.map((r) => r.llm_id),
    tool: await col(`SELECT DISTINCT t->>'name' FROM mcp_servers m, jsonb_array_elements(m.tools) t WHERE m.user_id = $1 ORDER BY 1`),
  };
}

export interface Credentials {
  pat: string;
  /** `tollgate_session=<token>` of a signed-in dashboard session of the same user. */
  cookie: string;
  /** A client API key of the same user: never valid on /api/*. */
  clientKey: string;
}

export class World {
  own: Ids = emptyIds();
  other: Ids = emptyIds();
  /** The TOTP secret of the last accepted 2FA setup, so that some codes the fuzzer sends are current. */
  totpSecret: string | undefined;

  constructor(private readonly db: Queryable, readonly ownUserId: string, readonly otherUserId: string, public creds: Credentials) {}

  async refresh(): Promise<void> {
    this.own = await idsOf(this.db, this.ownUserId);
    this.other = await idsOf(this.db, this.otherUserId);
  }

  /** The id a reference names now, or a syntactically valid id of nothing when the list is empty. */
  resolve(owner: Owner, kind: RefKind, n: number): string {
    if (kind === 'totp') return this.totpSecret ? codeAt(this.totpSecret, Math.floor(Date.now() / 1000)) : '000000';
    const list = (owner === 'own' ? this.own : this.other)[kind];
    if (list.length === 0) return kind === 'tool' ? 'echo' : '00000000-0000-4000-8000-000000000000';
    return list[n % list.length]!;
  }

  /** Replaces every reference inside a string (a raw body, a query value). */
  resolveText(text: string): string {
    return text.replace(REF_PATTERN, (_, o: Owner, k: RefKind, n: string) => this.resolve(o, k, Number(n)));
  }

  /** A JSON value serialised with its references replaced (ids hold no character JSON would escape). */
  resolveJson(v: unknown): string | undefined {
    const text = JSON.stringify(v);
    return text === undefined ? undefined : this.resolveText(text);
  }
}

function emptyIds(): Ids {
  return { mcp: [], llm: [], key: [], pat: [], res: [], resMcp: [], log: [], logLlm: [], tool: [] };
}
