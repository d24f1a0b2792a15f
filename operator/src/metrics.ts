// The operator's Prometheus metrics (GET /metrics on the health listener).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class OperatorMetrics {
  readonly registry = new Registry();
  readonly reconciles = new Counter({ name: 'tollgate_operator_reconcile_total', help: 'Reconciles by kind and result (synced, waiting, invalid, error, deleted).', labelNames: ['kind', 'result'], registers: [this.registry] });
  readonly duration = new Histogram({ name: 'tollgate_operator_reconcile_duration_seconds', help: 'Time of one reconcile, by kind.', labelNames: ['kind'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [this.registry] });
  readonly errors = new Counter({ name: 'tollgate_operator_reconcile_errors_total', help: 'Reconciles that did not reach the spec, by kind and condition reason.', labelNames: ['kind', 'reason'], registers: [this.registry] });
  readonly watchRestarts = new Counter({ name: 'tollgate_operator_watch_restarts_total', help: 'Watches reopened, by kind and why (closed by the server, gone = 410 relist, stalled, error).', labelNames: ['kind', 'reason'], registers: [this.registry] });
  readonly leader = new Gauge({ name: 'tollgate_operator_leader', help: '1 while this replica holds the leader Lease.', registers: [this.registry] });
  readonly queueDepth: Gauge;

  constructor(depth: () => number) {
    this.queueDepth = new Gauge({ name: 'tollgate_operator_queue_depth', help: 'Objects waiting in the work queue (not counting delayed retries).', registers: [this.registry], collect() { this.set(depth()); } });
    collectDefaultMetrics({ register: this.registry, prefix: 'tollgate_operator_' });
  }
}
