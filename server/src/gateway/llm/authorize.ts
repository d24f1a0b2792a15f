// The authorize phase of LLM requests (after authentication): the body must be JSON where the route needs it, and the
// model must be one the caller may use (model-policy.ts): in a non-empty allowedModels, and covered by a client key's
// tags. A method and path outside the provider's route table (routes.ts) never get here: the handler refuses them
// with routeRefused right after authentication, before the body is read.
import { Msg } from '../../http/errors.ts';
import type { Authorize, Verdict } from '../pipeline/index.ts';
import { callOf } from './exchange.ts';
import type { ModelPolicy, ModelRefusal } from './model-policy.ts';
import type { RouteRefusal } from './routes.ts';

export const LlmMsg = {
  modelNotAllowed: 'Model not allowed on this LLM proxy',
  keyModelNotAllowed: 'This API key may not use this model',
  keyNoAccess: 'This API key has no access to this LLM proxy',
  budgetProxy: 'Budget exceeded for this LLM proxy',
  budgetKey: 'Budget exceeded for this API key',
  noProviderKey: 'This LLM proxy has no provider key',
  notPinned: 'Provider address is not resolved; re-resolve the LLM proxy',
  upstreamUnreachable: 'Upstream unreachable',
  upstreamTimeout: 'Upstream timed out',
  invalidModelList: 'Upstream returned an invalid model list',
} as const;

const MODEL_REFUSALS: Record<ModelRefusal, string> = {
  model_not_allowed: LlmMsg.modelNotAllowed,
  no_proxy_grant: LlmMsg.keyNoAccess,
  model_not_granted: LlmMsg.keyModelNotAllowed,
};

const CONTINUE: Verdict = { kind: 'continue' };

type Denial = Extract<Verdict, { kind: 'deny' }>;

function deny(status: number, message: string, reason: string, extra: Record<string, unknown> = {}): Denial {
  return { kind: 'deny', status, message, event: { type: 'deny', details: { reason, phase: 'authorize', ...extra } } };
}

/** The refusal of a request whose method and path the proxy does not serve (400 or 403, one deny event). */
export function routeRefused(r: RouteRefusal): Denial {
  return deny(r.status, r.message, r.reason, r.details);
}

export function createAuthorize(models: ModelPolicy): Authorize {
  return (x) => {
    const call = callOf(x);
    if (!call) return deny(500, 'Internal error', 'no_call');
    const route = call.route;
    if (call.invalidBody) return deny(400, Msg.invalidJson, 'invalid_json');
    const refusal = route.use === 'list_models' ? models.checkProxy(x.identity) : models.check(x.identity, call.requestedModel);
    return refusal ? deny(403, MODEL_REFUSALS[refusal], refusal) : CONTINUE;
  };
}
