// Hand-written shapes of the protocol messages as @grpc/proto-loader hands them over (keepCase, longs and enums
// as strings, defaults filled, bytes as Buffer) and as this provider builds them. Only the fields used are listed.

export interface WireDynamicValue {
  msgpack?: Uint8Array;
  json?: Uint8Array;
}

export type WireStep = { attribute_name: string } | { element_key_string: string } | { element_key_int: number };
export interface WireAttributePath { steps: WireStep[] }

export interface WireDiagnostic {
  severity: 'ERROR' | 'WARNING';
  summary: string;
  detail: string;
  attribute?: WireAttributePath;
}

export type WireNesting = 'SINGLE' | 'LIST' | 'SET' | 'MAP';

export interface WireAttribute {
  name: string;
  type: Uint8Array;
  nested_type?: { attributes: WireAttribute[]; nesting: WireNesting };
  description: string;
  description_kind: 'PLAIN' | 'MARKDOWN';
  required: boolean;
  optional: boolean;
  computed: boolean;
  sensitive: boolean;
  write_only: boolean;
}

export interface WireSchema {
  version: number;
  block: { version: number; attributes: WireAttribute[]; block_types: []; description: string; description_kind: 'PLAIN' | 'MARKDOWN' };
}

export interface WireServerCapabilities {
  plan_destroy: boolean;
  get_provider_schema_optional: boolean;
  move_resource_state: boolean;
}

// Requests (what arrives). Message fields may be null when terraform leaves them out.
export interface ConfigRequest { type_name?: string; config: WireDynamicValue | null }
export interface UpgradeRequest { type_name: string; version: string; raw_state: { json: Uint8Array } | null }
export interface ReadRequest { type_name: string; current_state: WireDynamicValue | null; private: Uint8Array }
export interface PlanRequestWire {
  type_name: string;
  prior_state: WireDynamicValue | null;
  proposed_new_state: WireDynamicValue | null;
  config: WireDynamicValue | null;
  prior_private: Uint8Array;
}
export interface ApplyRequest {
  type_name: string;
  prior_state: WireDynamicValue | null;
  planned_state: WireDynamicValue | null;
  config: WireDynamicValue | null;
  planned_private: Uint8Array;
}
export interface ImportRequest { type_name: string; id: string }
