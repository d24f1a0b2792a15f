// What a provider folder exports: pure translation between the client's request/response and the provider's wire
// format (STYLE "One folder per provider"). No I/O: the LLM handler does the HTTP, these functions read and rewrite
// JSON values and SSE events, and are tested with recorded wire fixtures.
import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderId } from '@tollgate/contract';
import type { TokenUsage } from '../../../pricing/cost.ts';
import type { SkimFilter } from '../../upstream/sse-skim.ts';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

/** The operations the gateway accounts for. */
export type EndpointKind = 'chat' | 'responses' | 'completions' | 'embeddings' | 'messages' | 'count_tokens' | 'generate' | 'embed' | 'fim';

export interface Endpoint {
  kind: EndpointKind;
  /** Gemini: the model is part of the path (`/v1beta/models/<model>:generateContent`). */
  pathModel?: string;
  /** Gemini: streaming is chosen by the path (`:streamGenerateContent`). */
  pathStream?: boolean;
  /** Endpoints that produce no billable tokens (count_tokens). */
  free?: boolean;
}

/** The role a prompt text belongs to; model_route and prompt_guard read the `user` ones. */
export type TextRole = 'user' | 'system' | 'assistant' | 'tool' | 'other';

/** Called for every prompt text; returning a string replaces that text in the request body. */
export type TextVisitor = (text: string, role: TextRole) => string | undefined;

/** Reads a response stream event by event (SSE `event:` name and `data:` payload). */
export interface StreamReader {
  /**
   * The events that carry usage. Without text collection the tap hands only these to `onEvent` and counts the
   * others' payloads with `countChars` (gateway/upstream/sse-skim.ts); `onEvent` gives every event the same result.
   */
  readonly usageEvents: SkimFilter;
  /** Every event carries usage (Gemini repeats its running totals in each): all are decoded, as reading on the bytes would save nothing. */
  readonly usageInEveryEvent?: boolean;
  onEvent(event: string, data: string): void;
  /** Adds the characters of a payload that was not handed to `onEvent` (the chars/4 fallback). */
  countChars(n: number): void;
  /** Usage the stream reported, if it did. */
  usage(): TokenUsage | undefined;
  /** Generated text seen so far ('' unless the reader was asked to collect it). */
  text(): string;
  /**
   * Characters for the chars/4 fallback when no usage came: the generated text's length, or, when text is not
   * collected, the length of the events' payloads (an upper bound).
   */
  chars(): number;
  /** The model the provider says answered, if it said. */
  model(): string | undefined;
}

export interface StreamReaderOptions {
  /**
   * Collect the generated text (conversation logs, response-phase prompt_guard). Without it a reader only parses the
   * events that carry usage, which keeps a stream's per-chunk cost to a substring check.
   */
  text: boolean;
}

export interface ProviderError {
  type?: string;
  code?: string;
}

/**
 * One entry of a provider's route table (../routes.ts): the only requests a proxy forwards. A `path` is literal
 * segments, `{model}` (one segment, percent-decoded: the model) or `{model}:<operation>` (Gemini).
 */
export type RouteSpec =
  | {
    method: 'POST';
    path: string;
    /** The metered operation. */
    endpoint: EndpointKind;
    /**
     * Where the model is named: the body's `model`, the path, or nowhere the gateway can see (`upstream`: a Mistral
     * agent's model is stored with the agent, so only a caller that may use every model is served).
     */
    model: 'body' | 'path' | 'upstream';
    /** Produces no billable tokens (count_tokens). */
    free?: true;
    /** Streaming is chosen by the path (Gemini `:streamGenerateContent`). */
    stream?: true;
  }
  | {
    method: 'GET';
    path: string;
    /** The model listing (filtered to what the caller may use) or one model's description (`{model}` in the path). */
    use: 'list_models' | 'get_model';
  };

/** Keeps the listed models this caller may use. */
export type ModelFilter = (model: string) => boolean;

export interface ProviderAdapter {
  readonly id: ProviderId;
  /** Every method and path the proxy serves; anything else is refused before the upstream is called. */
  readonly routes: readonly RouteSpec[];
  /**
   * The provider's model listing with only the models `keep` accepts, pagination fields made to fit; undefined when
   * the body is not the provider's listing shape (it is then not relayed).
   */
  filterModelList(body: Json, keep: ModelFilter): Json | undefined;
  /** The client key in the provider's native place (x-api-key, x-goog-api-key, ?key=); Bearer is read first. */
  nativeClientKey(headers: IncomingHttpHeaders, query: URLSearchParams): string | undefined;
  /** The header carrying the stored provider key upstream (docs/llm-gateway.md#providers-and-paths). */
  authHeader(providerKey: string): [name: string, value: string];
  readModel(ep: Endpoint, body: JsonObject | undefined): string | undefined;
  /** Sets the model; returns the (possibly new) path, since Gemini carries it there. */
  writeModel(ep: Endpoint, body: JsonObject | undefined, pathname: string, model: string): string;
  isStream(ep: Endpoint, body: JsonObject | undefined): boolean;
  /** Makes a streaming request report usage where the provider needs asking; true when the body changed. */
  askStreamUsage(ep: Endpoint, body: JsonObject): boolean;
  /** The largest output the request allows (max_tokens and friends), for reservations. */
  maxOutputTokens(ep: Endpoint, body: JsonObject | undefined): number | undefined;
  /** Walks every prompt text of the request; a visitor result replaces the text. True when something changed. */
  visitPrompt(ep: Endpoint, body: JsonObject, visit: TextVisitor): boolean;
  usageFromJson(ep: Endpoint, body: Json): TokenUsage | undefined;
  /** The top-level key holding usage in a JSON answer (read without parsing the whole answer when possible). */
  readonly usageKey: string;
  /** Usage from the value of `usageKey` alone. */
  usageFromObject(ep: Endpoint, usage: Json): TokenUsage | undefined;
  completionFromJson(ep: Endpoint, body: Json): string;
  modelFromJson(body: Json): string | undefined;
  streamReader(ep: Endpoint, opts?: StreamReaderOptions): StreamReader;
  errorFromJson(body: Json): ProviderError | undefined;
}
