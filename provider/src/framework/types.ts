// The provider's inner contract: what a resource or data source implements, in plain JavaScript values. The
// protocol layer (src/protocol/) decodes cty/msgpack into these values, calls the hooks, and encodes the answers;
// nothing below it knows about gRPC or msgpack. Modelled on terraform-plugin-framework: one object per resource
// with schema/create/read/update/delete and opt-in capabilities, errors as diagnostics with attribute paths.

/** A value not known until apply (cty "unknown"). Compare with `=== UNKNOWN`. */
export const UNKNOWN: unique symbol = Symbol.for('tollgate.terraform.unknown');
export type Unknown = typeof UNKNOWN;

export type Value = null | Unknown | string | number | boolean | Value[] | ObjectValue;
export interface ObjectValue { [attribute: string]: Value }

/** cty types in their JSON form, as terraform writes them in a schema. */
export type CtyType =
  | 'string' | 'number' | 'bool' | 'dynamic'
  | ['list' | 'set' | 'map', CtyType]
  | ['object', Record<string, CtyType>]
  | ['tuple', CtyType[]];

export type Nesting = 'single' | 'list' | 'set' | 'map';

export interface Attribute {
  description: string;
  /** Exactly one of type and nested. */
  type?: CtyType;
  nested?: { nesting: Nesting; attributes: Record<string, Attribute> };
  required?: boolean;
  optional?: boolean;
  computed?: boolean;
  sensitive?: boolean;
  /** Terraform 1.11 write-only argument: sent in config, never planned or stored. */
  writeOnly?: boolean;
  /** A change of this attribute replaces the object (the API cannot change it in place). */
  forceNew?: boolean;
  /** Computed and unchanged by updates: the plan keeps the prior value instead of marking it unknown. */
  stable?: boolean;
  /**
   * Checks a known value against the contract at validate time (`terraform validate` and `plan`), so a value the API
   * would refuse is reported on its line before anything is sent; the message of the first problem, or undefined.
   */
  check?: (value: unknown) => string | undefined;
}

export interface Schema {
  version: number;
  description: string;
  attributes: Record<string, Attribute>;
}

/** A path into an object: attribute names and list indexes (or map keys). */
export type Path = (string | number)[];

export interface Diagnostic {
  severity: 'error' | 'warning';
  summary: string;
  detail?: string;
  path?: Path;
}

export interface Result<T> { value?: T; diagnostics: Diagnostic[] }

/** The configured provider: whatever configure() returned, handed to every hook. */
export interface ResourceType<Client> {
  schema: Schema;
  /** Checks that need no server (run at validate time; config may hold unknowns). */
  validate?(config: ObjectValue): Diagnostic[];
  /**
   * Optional plan adjustment after the framework's default plan (config values, computed attributes unknown on
   * create and kept when `stable`, write-only attributes null, `forceNew` attributes compared for replacement).
   */
  modifyPlan?(plan: PlanRequest): { planned: ObjectValue; requiresReplace?: Path[]; diagnostics?: Diagnostic[] };
  create(client: Client, planned: ObjectValue, config: ObjectValue): Promise<Result<ObjectValue>>;
  /** A null value with no error diagnostics: the object is gone (terraform plans its re-creation). */
  read(client: Client, state: ObjectValue): Promise<Result<ObjectValue | null>>;
  update(client: Client, planned: ObjectValue, prior: ObjectValue, config: ObjectValue): Promise<Result<ObjectValue>>;
  delete(client: Client, prior: ObjectValue): Promise<Result<void>>;
  /** Turns an import id into a state that read() can refresh (usually just the ids). */
  importState(client: Client, id: string): Promise<Result<ObjectValue>>;
}

export interface PlanRequest {
  prior: ObjectValue | null;
  config: ObjectValue;
  planned: ObjectValue;
}

export interface DataSourceType<Client> {
  schema: Schema;
  validate?(config: ObjectValue): Diagnostic[];
  read(client: Client, config: ObjectValue): Promise<Result<ObjectValue>>;
}

export interface ProviderDefinition<Client> {
  /** The type name prefix, e.g. "tollgate" for tollgate_api_key. */
  typeName: string;
  schema: Schema;
  validate?(config: ObjectValue): Diagnostic[];
  configure(config: ObjectValue): Promise<Result<Client>>;
  /** Keyed by full type name ("tollgate_api_key"); a key without the prefix ("api_key") gets `${typeName}_`. */
  resources: Record<string, ResourceType<Client>>;
  /** Keyed like resources. */
  dataSources: Record<string, DataSourceType<Client>>;
}
