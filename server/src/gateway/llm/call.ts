// One LLM request as the data plane sees it: its route (routes.ts: the metered endpoint, a model listing or lookup,
// or a refusal), the parsed body, the model, and the edits the rules make (prompt_replace, prompt_guard rewrite,
// model_route). The body is re-serialised only if a rule changed it, so an untouched request is forwarded byte for
// byte.
import type { Endpoint, JsonObject, ProviderAdapter, TextVisitor } from './providers/index.ts';
import { isObject, parseJson } from './providers/json.ts';
import { routeLabel, type Route } from './routes.ts';

/** Output tokens reserved for a request that does not say how many it may generate. */
export const DEFAULT_OUTPUT_ESTIMATE = 1024;
/** Upper bound of a reservation's output part, whatever the request asks for. */
const MAX_OUTPUT_ESTIMATE = 65_536;

/** The model the request names: in the body or path of a call, the path of a model lookup; none for a listing. */
function requestedModelOf(adapter: ProviderAdapter, route: Route, json: JsonObject | undefined): string | undefined {
  if (route.use === 'get_model') return route.model;
  if (route.use !== 'call' || route.modelFrom === 'upstream') return undefined;
  return adapter.readModel(route.endpoint, json);
}

export class LlmCall {
  /** The model the upstream will receive (after model_route). */
  model: string | undefined;
  /** The model the client asked for (allowedModels and key tags are checked against it). */
  readonly requestedModel: string | undefined;
  readonly stream: boolean;
  /** Path the upstream receives (Gemini: changes with the model). */
  pathname: string;
  private dirty = false;
  private userTextCache: string | undefined;
  /** Token reconciliations registered by rules (tokens_per_minute); run with the actual token count. */
  readonly settlers: Array<(actualTokens: number) => Promise<void>> = [];
  /** Set when a rule changed the model (events and usage keep both). */
  routedBy: string | undefined;
  /** The metered endpoint (route `call`), else undefined. */
  readonly endpoint: Endpoint | undefined;

  /** Query string to forward (the client key already removed), with its leading '?', or ''. */
  readonly search: string;
  /** The body, when the route is a metered endpoint and the body a JSON object. */
  readonly json: JsonObject | undefined;
  /** The endpoint needs a JSON object body and did not get one (answered 400 after authentication). */
  readonly invalidBody: boolean;

  /** target: where the request goes upstream (handler.ts splitTarget); raw: the request body as received. */
  constructor(
    readonly adapter: ProviderAdapter,
    readonly route: Route,
    target: { pathname: string; search: string },
    private raw: Buffer,
  ) {
    this.pathname = target.pathname;
    this.search = target.search;
    const endpoint = route.use === 'call' ? route.endpoint : undefined;
    this.endpoint = endpoint;
    const parsed = endpoint && raw.length ? parseJson(raw.toString('utf8')) : undefined;
    const json = isObject(parsed) ? parsed : undefined;
    this.json = json;
    this.invalidBody = endpoint !== undefined && json === undefined;
    this.requestedModel = requestedModelOf(adapter, route, json);
    this.model = this.requestedModel;
    this.stream = endpoint ? adapter.isStream(endpoint, json) : false;
  }

  /** What the request is, for events and lambdas: the endpoint kind, `list_models`, `get_model` or `refused`. */
  get label(): string {
    return routeLabel(this.route);
  }

  /** Whether the gateway accounts this request (a known, billable endpoint with a JSON body). */
  get accounted(): boolean {
    return !!this.endpoint && !this.endpoint.free && !!this.json;
  }

  /** The concatenated role=user prompt texts (model_route, prompt_guard), recomputed after a rewrite. */
  userText(): string {
    if (this.userTextCache !== undefined) return this.userTextCache;
    const parts: string[] = [];
    if (this.endpoint && this.json) {
      this.adapter.visitPrompt(this.endpoint, this.json, (t, role) => {
        if (role === 'user') parts.push(t);
        return undefined;
      });
    }
    this.userTextCache = parts.join('\n');
    return this.userTextCache;
  }

  /** The last role=user prompt text (conversation log summaries). */
  lastUserText(): string {
    let last = '';
    if (this.endpoint && this.json) {
      this.adapter.visitPrompt(this.endpoint, this.json, (t, role) => {
        if (role === 'user') last = t;
        return undefined;
      });
    }
    return last;
  }

  /** Rewrites prompt texts; true when something changed. */
  rewritePrompt(visit: TextVisitor): boolean {
    if (!this.endpoint || !this.json) return false;
    const changed = this.adapter.visitPrompt(this.endpoint, this.json, visit);
    if (changed) {
      this.dirty = true;
      this.userTextCache = undefined;
    }
    return changed;
  }

  setModel(model: string, rule: string): void {
    if (!this.endpoint || model === this.model) return;
    this.pathname = this.adapter.writeModel(this.endpoint, this.json, this.pathname, model);
    this.model = model;
    this.routedBy = rule;
    if (this.json && this.endpoint.pathModel === undefined) this.dirty = true;
  }

  /** Streaming requests ask for usage where the provider needs asking (OpenAI stream_options.include_usage). */
  prepareForUpstream(): void {
    if (this.stream && this.endpoint && this.json && this.adapter.askStreamUsage(this.endpoint, this.json)) this.dirty = true;
  }

  /** The bytes to forward. */
  body(): Buffer {
    if (this.dirty && this.json) {
      this.raw = Buffer.from(JSON.stringify(this.json));
      this.dirty = false;
    }
    return this.raw;
  }

  get bodyBytes(): number {
    return this.raw.length;
  }

  /** Estimated tokens before the call (reservations): prompt bytes / 4, plus the output the request allows. */
  estimateTokens(): { inputTokens: number; outputTokens: number } {
    const inputTokens = Math.ceil(this.raw.length / 4);
    if (!this.endpoint || this.endpoint.kind === 'embeddings' || this.endpoint.kind === 'embed') return { inputTokens, outputTokens: 0 };
    const max = this.adapter.maxOutputTokens(this.endpoint, this.json);
    return { inputTokens, outputTokens: Math.min(max ?? DEFAULT_OUTPUT_ESTIMATE, MAX_OUTPUT_ESTIMATE) };
  }
}
