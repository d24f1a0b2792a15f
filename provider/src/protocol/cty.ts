// cty values on the wire (DynamicValue) ⇄ framework Values, guided by the cty type. msgpack is what terraform sends:
// every extension is an unknown value (ext 0 plain, ext 12 refined), numbers arrive as int, float or decimal
// strings, and objects carry every attribute (nil for null). The json form has no unknowns and writes a dynamic
// value as {"value", "type"}.
import { decode, encode, ExtData } from '@msgpack/msgpack';
import { UNKNOWN, type CtyType, type ObjectValue, type Value } from '../framework/types.ts';
import type { ObjectType } from './types-of.ts';
import type { WireDynamicValue } from './wire.ts';

type Format = 'msgpack' | 'json';
const noBytes = new Uint8Array(0);

export function decodeObject(dv: WireDynamicValue | null | undefined, type: ObjectType): ObjectValue | null {
  const value = decodeDynamicValue(dv, type);
  if (value === UNKNOWN || Array.isArray(value)) throw new Error('expected an object value');
  if (value !== null && typeof value === 'object') return value;
  if (value === null) return null;
  throw new Error('expected an object value');
}

export function decodeDynamicValue(dv: WireDynamicValue | null | undefined, type: CtyType): Value {
  if (dv?.msgpack && dv.msgpack.length > 0) return fromWire(decode(dv.msgpack, { useBigInt64: true }), type, 'msgpack');
  if (dv?.json && dv.json.length > 0) return fromWire(JSON.parse(Buffer.from(dv.json).toString('utf8')), type, 'json');
  return null;
}

/** A JSON document already parsed (state files, raw_state.json) read as a value of the type. */
export function fromJson(raw: unknown, type: CtyType): Value {
  return fromWire(raw, type, 'json');
}

export function encodeDynamicValue(value: Value, type: CtyType): WireDynamicValue {
  return { msgpack: Buffer.from(encode(toWire(value, type))) };
}

function fromWire(raw: unknown, type: CtyType, format: Format): Value {
  if (raw instanceof ExtData || raw instanceof Date) return UNKNOWN;
  if (raw === null || raw === undefined) return null;
  if (typeof type === 'string') return fromWirePrimitive(raw, type, format);
  const [kind] = type;
  if (kind === 'object') return fromWireObject(raw, type[1], format);
  if (kind === 'tuple') return expectArray(raw).map((item, i) => fromWire(item, type[1][i] ?? 'dynamic', format));
  if (kind === 'map') {
    const out: ObjectValue = {};
    for (const [key, item] of Object.entries(expectRecord(raw))) out[key] = fromWire(item, type[1], format);
    return out;
  }
  return expectArray(raw).map((item) => fromWire(item, type[1], format));
}

function fromWireObject(raw: unknown, fields: Record<string, CtyType>, format: Format): ObjectValue {
  const record = expectRecord(raw);
  const out: ObjectValue = {};
  for (const [name, fieldType] of Object.entries(fields)) out[name] = fromWire(record[name], fieldType, format);
  return out;
}

function fromWirePrimitive(raw: unknown, type: 'string' | 'number' | 'bool' | 'dynamic', format: Format): Value {
  switch (type) {
    case 'string':
      if (typeof raw === 'string') return raw;
      if (raw instanceof Uint8Array) return Buffer.from(raw).toString('utf8');
      break;
    case 'number':
      return toNumber(raw);
    case 'bool':
      if (typeof raw === 'boolean') return raw;
      break;
    case 'dynamic':
      return fromWireDynamic(raw, format);
  }
  throw new Error(`expected a ${type}, got ${describe(raw)}`);
}

function toNumber(raw: unknown): number {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'bigint') return Number(raw);
  if (typeof raw === 'string' && raw.trim() !== '' && !Number.isNaN(Number(raw))) return Number(raw);
  throw new Error(`expected a number, got ${describe(raw)}`);
}

/** msgpack: [type JSON as bytes, value]; json: {"value": v, "type": t}. */
function fromWireDynamic(raw: unknown, format: Format): Value {
  if (format === 'msgpack') {
    const [typeBytes, value] = expectArray(raw);
    if (!(typeBytes instanceof Uint8Array)) throw new Error('a dynamic value needs its type');
    return fromWire(value, parseType(Buffer.from(typeBytes).toString('utf8')), format);
  }
  const record = expectRecord(raw);
  return fromWire(record.value, parseType(JSON.stringify(record.type)), format);
}

function parseType(json: string): CtyType {
  // The type came from terraform itself; its shape is checked where it is used (fromWire throws on a mismatch).
  return JSON.parse(json) as CtyType;
}

function toWire(value: Value, type: CtyType): unknown {
  if (value === UNKNOWN) return new ExtData(0, noBytes);
  if (value === null) return null;
  if (type === 'dynamic') return [Buffer.from(JSON.stringify(inferType(value))), toWire(value, inferType(value))];
  if (typeof type === 'string') return toWirePrimitive(value, type);
  const [kind] = type;
  if (kind === 'object') {
    const record = expectValueRecord(value);
    const out: Record<string, unknown> = {};
    for (const [name, fieldType] of Object.entries(type[1])) out[name] = toWire(record[name] ?? null, fieldType);
    return out;
  }
  if (kind === 'tuple') return expectValueArray(value).map((item, i) => toWire(item, type[1][i] ?? 'dynamic'));
  if (kind === 'map') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(expectValueRecord(value))) out[key] = toWire(item, type[1]);
    return out;
  }
  return expectValueArray(value).map((item) => toWire(item, type[1]));
}

function toWirePrimitive(value: Value, type: 'string' | 'number' | 'bool'): unknown {
  const expected = type === 'bool' ? 'boolean' : type;
  if (typeof value !== expected) throw new Error(`expected a ${type}, got ${describe(value)}`);
  return value;
}

/** The cty type a plain value would have in a dynamic attribute (arrays become tuples, records objects). */
export function inferType(value: Value): CtyType {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  if (value === null || value === UNKNOWN) return 'dynamic';
  if (Array.isArray(value)) return ['tuple', value.map(inferType)];
  const fields: Record<string, CtyType> = {};
  for (const [name, item] of Object.entries(value)) fields[name] = inferType(item);
  return ['object', fields];
}

function expectArray(raw: unknown): unknown[] {
  if (Array.isArray(raw)) return raw;
  throw new Error(`expected a list, got ${describe(raw)}`);
}

function expectRecord(raw: unknown): Record<string, unknown> {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && !(raw instanceof Uint8Array)) {
    return raw as Record<string, unknown>;
  }
  throw new Error(`expected an object or map, got ${describe(raw)}`);
}

function expectValueArray(value: Value): Value[] {
  if (Array.isArray(value)) return value;
  throw new Error(`expected a list, got ${describe(value)}`);
}

function expectValueRecord(value: Value): ObjectValue {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value;
  throw new Error(`expected an object or map, got ${describe(value)}`);
}

function describe(raw: unknown): string {
  if (raw === UNKNOWN) return 'an unknown value';
  if (Array.isArray(raw)) return 'a list';
  if (raw instanceof Uint8Array) return 'bytes';
  return raw === null ? 'null' : typeof raw;
}
