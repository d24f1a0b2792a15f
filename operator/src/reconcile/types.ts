// The inner contract between the controller and the per-kind reconcilers: a reconciler gets the object (already
// parsed), a client of the management API for the object's connection, read access to the other objects, and
// returns an Outcome; it never writes the object or its status itself.
import type { ApiClient, Logger } from '@tollgate/contract';
import type { z } from 'zod';
import type { KubeClient } from '../kube/client.ts';
import type { KubeObject } from '../kube/objects.ts';
import type { Kind } from '../kinds/specs.ts';
import type { Outcome } from './outcome.ts';
import type { SecretRead } from './secrets.ts';

export interface ObjectIndex {
  get(kind: Kind, namespace: string, name: string): KubeObject | undefined;
  /** The objects of a kind in one namespace, or in every watched namespace when `namespace` is undefined. */
  list(kind: Kind, namespace?: string): KubeObject[];
}

/** A connection Secret: the management API and the PAT whose user owns what is made through it. */
export interface ConnectionRef { namespace: string; name: string }

export interface ReconcileContext {
  kube: KubeClient;
  api: ApiClient;
  /** A key of a Secret in the object's namespace; a later change of that Secret queues the object again. */
  readSecret(ref: { name: string; key: string }, what: string): Promise<SecretRead>;
  objects: ObjectIndex;
  log: Logger;
}

export interface Reconciler<S extends z.ZodType = z.ZodType> {
  kind: Kind;
  spec: S;
  /** Brings the remote object to the spec (create, update what differs, adopt what a crash left behind). */
  reconcile(ctx: ReconcileContext, obj: KubeObject<z.output<S>>): Promise<Outcome>;
  /** Deletes what the object created remotely: undefined when done (the finalizer goes), else why not yet. */
  cleanup(ctx: ReconcileContext, obj: KubeObject<z.output<S>>): Promise<Outcome | undefined>;
  /**
   * Where the remote object is reached when that is not the object's own connection Secret (an ApiKey on proxies
   * shared from another namespace), or why the object may not be reconciled at all yet; undefined: its own.
   */
  connectionOf?(obj: KubeObject<z.output<S>>, objects: ObjectIndex): ConnectionRef | { refused: Outcome } | undefined;
  /** Objects of other kinds to look at again when this one changes (dependents waiting for it). */
  dependents?(obj: KubeObject, objects: ObjectIndex): Array<{ kind: Kind; namespace: string; name: string }>;
}
