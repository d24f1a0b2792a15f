// What a reconcile decided, as a value: the status fields to publish, the two conditions, whether and when to look
// again, and the Event to record. The controller turns it into one status patch (with the whole conditions list).
import type { Condition } from '../kube/objects.ts';

export type Requeue =
  | { kind: 'none' }
  /** A transient failure: retried after the key's growing backoff delay. */
  | { kind: 'backoff' }
  /** Waiting for something outside the operator's control (a Secret, a proxy becoming Ready): look again later. */
  | { kind: 'after'; ms: number };

export interface ConditionValue {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

export interface Outcome {
  /** Status fields besides observedGeneration and conditions (id, proxyHost, …); merged over the current ones. */
  fields: Record<string, unknown>;
  synced: ConditionValue;
  ready: ConditionValue;
  /** Conditions of the kind's own besides Ready and Synced (McpProxy's ToolChangesPending), by type. */
  conditions?: Record<string, ConditionValue>;
  requeue: Requeue;
  event?: { type: 'Normal' | 'Warning'; reason: string; message: string };
}

export const NO_REQUEUE: Requeue = { kind: 'none' };

export function ok(fields: Record<string, unknown>, message = 'The remote object matches the spec', event?: Outcome['event']): Outcome {
  return {
    fields,
    synced: { status: 'True', reason: 'Synced', message },
    ready: { status: 'True', reason: 'Ready', message: 'Serving' },
    requeue: NO_REQUEUE,
    event,
  };
}

/** Not synced for `reason`: both conditions say so, with a Warning Event, and the key is queued again as `requeue` says. */
function notSynced(reason: string, message: string, fields: Record<string, unknown>, { ready, requeue }: { ready: 'False' | 'Unknown'; requeue: Outcome['requeue'] }): Outcome {
  return {
    fields,
    synced: { status: 'False', reason, message },
    ready: { status: ready, reason, message },
    requeue,
    event: { type: 'Warning', reason, message },
  };
}

/** Something this object needs is missing or not ready; nothing remote was changed. */
export function waiting(reason: string, message: string, fields: Record<string, unknown> = {}, ms = 5_000): Outcome {
  return notSynced(reason, message, fields, { ready: 'False', requeue: { kind: 'after', ms } });
}

/** The spec cannot be applied as it is (refused by the contract or by the API); retried only when it changes, or at the slow pace of the backoff cap. */
export function invalid(reason: string, message: string, fields: Record<string, unknown> = {}): Outcome {
  return notSynced(reason, message, fields, { ready: 'False', requeue: { kind: 'after', ms: 5 * 60_000 } });
}

/** A transient failure (API unreachable, 5xx): retried with backoff. */
export function failed(reason: string, message: string, fields: Record<string, unknown> = {}): Outcome {
  return notSynced(reason, message, fields, { ready: 'Unknown', requeue: { kind: 'backoff' } });
}

/**
 * The conditions list after an outcome: Ready and Synced set from it (lastTransitionTime kept when the status did not
 * change), other condition types kept as they are. Always the whole list, so a status patch never drops one.
 */
export function nextConditions(prev: readonly Condition[] | undefined, o: Outcome, generation: number | undefined, now: Date): Condition[] {
  const set = (type: string, v: ConditionValue): Condition => {
    const old = prev?.find((c) => c.type === type);
    return {
      type, status: v.status, reason: v.reason, message: v.message.slice(0, 32_000),
      lastTransitionTime: old && old.status === v.status ? old.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      ...(generation === undefined ? {} : { observedGeneration: generation }),
    };
  };
  const own = Object.entries(o.conditions ?? {}).map(([type, v]) => set(type, v));
  const others = (prev ?? []).filter((c) => c.type !== 'Ready' && c.type !== 'Synced' && !o.conditions?.[c.type]);
  return [set('Ready', o.ready), set('Synced', o.synced), ...own, ...others];
}
