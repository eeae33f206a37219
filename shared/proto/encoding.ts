import protobuf from 'protobufjs/minimal.js';
// The whole descriptor (descriptor.json) here and locally; a deployed function's bundle gets only the messages its
// code names instead (infra/proto-descriptors.ts aliases #proto-descriptor when it bundles the function).
import descriptor from '#proto-descriptor' with { type: 'json' };
import { UNSPECIFIED } from './unspecified.ts';

// Response bodies are built as plain objects and always pass through their protobuf message type, so the JSON
// follows the proto3 JSON mapping exactly as the public API's does (int64 as strings, int32 as numbers, enums by
// name, every field present with its default, `[]` for empty lists, never null), and the protobuf form carries
// the same content.
//
// One exception, so that a client generated from the public OpenAPI description accepts every answer: the JSON
// never carries an enum value that the public enum lacks. An enum field holding UNSPECIFIED (the zero value
// `npm run proto` gives an enum without a public UNKNOWN, i.e. the field is unset) or a number the enum does not
// name is left out, and so are such entries of lists and maps (docs/COMPATIBILITY.md "Enum values"). The protobuf form
// is protobufjs' exactly: an unset field is absent from the wire anyway.
//
// Why not protobufjs' reflection runtime (protobufjs/light): it is 66 KB of every function's bundle, for three
// things done here over the same descriptor in a few lines: fromObject, toObject and encode exactly as protobufjs
// generates them (src/converter.js, src/encoder.js of protobufjs 7, with int64 as JavaScript numbers as the bundles
// have always carried them: no `long`), the wire format written by protobufjs' own small runtime (its Writer).
// Its static code generator (pbjs -t static-module) was measured too: the codecs of one list function came to
// 110 KB minified, more than the reflection runtime. test/unit/encoding.test.ts checks this module against
// protobufjs' reflection, message by message, on generated values (JSON and the wire bytes).

interface DescriptorJson {
  nested?: Record<string, DescriptorJson>;
  fields?: Record<string, { type: string; id: number; rule?: string; keyType?: string }>;
  values?: Record<string, number>;
}

interface EnumType {
  kind: 'enum';
  values: Record<string, number>;
  /** Number -> name; where two names share a number, the last one (protobufjs' valuesById). */
  names: Map<number, string>;
  /** The first value: a single field's default, and what a list entry that names no value becomes. */
  first: number;
  /** Number -> name of the values the JSON may carry: all but UNSPECIFIED. */
  publicNames: Map<number, string>;
}

interface Field {
  name: string;
  id: number;
  /** Where protobufjs' TypeErrors say the problem is: `.package.Message.field`. */
  fullName: string;
  type: string;
  repeated: boolean;
  map: boolean;
  resolved?: MessageType | EnumType;
}

interface MessageType {
  kind: 'message';
  fullName: string;
  /** In declaration order (fromObject's order). */
  fields: Field[];
  /** By field number (toObject's and encode's order). */
  byNumber: Field[];
  byName: Map<string, Field>;
}

// The scalar types the .proto files use, with their wire types. Another one is refused when the descriptor is read,
// so that a new .proto field type cannot be encoded differently from protobufjs without a test failing first.
const WIRE_TYPE: Record<string, number> = { double: 1, int32: 0, int64: 0, bool: 0, string: 2 };
const SCALAR_DEFAULT: Record<string, unknown> = { double: 0, int32: 0, int64: '0', bool: false, string: '' };
const RECURSION_LIMIT = 100; // protobufjs' util.recursionLimit

const types = new Map<string, MessageType | EnumType>();
const unresolved: { field: Field; scope: string }[] = [];

function index(namespace: DescriptorJson, prefix: string): void {
  for (const [name, nested] of Object.entries(namespace.nested ?? {})) {
    const fullName = prefix ? `${prefix}.${name}` : name;
    if (nested.values) {
      const names = new Map<number, string>();
      for (const [valueName, id] of Object.entries(nested.values)) names.set(id, valueName);
      const publicNames = new Map([...names].filter(([, valueName]) => valueName !== UNSPECIFIED));
      types.set(fullName, {
        kind: 'enum',
        values: nested.values,
        names,
        first: Object.values(nested.values)[0],
        publicNames,
      });
    } else if (nested.fields) {
      const fields = Object.entries(nested.fields).map(([fieldName, f]): Field => {
        if (f.keyType !== undefined && f.keyType !== 'string')
          throw new Error(
            `${fullName}.${fieldName}: map keys of type ${f.keyType} are not supported (shared/proto/encoding.ts)`,
          );
        return {
          name: fieldName,
          id: f.id,
          fullName: `.${fullName}.${fieldName}`,
          type: f.type,
          repeated: f.rule === 'repeated',
          map: f.keyType !== undefined,
        };
      });
      for (const field of fields) unresolved.push({ field, scope: fullName });
      types.set(fullName, {
        kind: 'message',
        fullName,
        fields,
        byNumber: [...fields].sort((a, b) => a.id - b.id),
        byName: new Map(fields.map((f) => [f.name, f])),
      });
    }
    index(nested, fullName);
  }
}
index(descriptor as DescriptorJson, '');

// A type name resolves as protobufjs' lookup does: absolute with a leading dot, else from the message outwards.
for (const { field, scope } of unresolved) {
  if (field.type in WIRE_TYPE) continue;
  let found: MessageType | EnumType | undefined;
  if (field.type.startsWith('.')) found = types.get(field.type.slice(1));
  else {
    const parts = scope.split('.');
    for (let i = parts.length; i >= 0 && !found; i--) found = types.get([...parts.slice(0, i), field.type].join('.'));
  }
  if (!found)
    throw new Error(
      `${field.fullName}: type ${field.type} is not a supported scalar or a message of the descriptor (shared/proto/encoding.ts)`,
    );
  field.resolved = found;
}

function messageOf(typeName: string): MessageType {
  const type = types.get(typeName);
  if (type?.kind !== 'message') throw new Error(`no such message type: ${typeName}`);
  return type;
}

const isObject = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object';
const own = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

/** An enum value from a name or a number; undefined leaves a single field unset. */
function enumFromObject(type: EnumType, value: unknown, inList: boolean): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && own(type.values, value)) return type.values[value];
  return inList ? type.first : undefined;
}

function valueFromObject(field: Field, value: unknown, depth: number, inList: boolean): unknown {
  const type = field.resolved;
  if (type?.kind === 'enum') return enumFromObject(type, value, inList);
  if (type) {
    if (!isObject(value)) throw TypeError(`${field.fullName}: object expected`);
    return fromObject(type, value, depth + 1);
  }
  switch (field.type) {
    case 'double':
      return Number(value);
    case 'int32':
      return (value as number) | 0;
    case 'string':
      return String(value);
    case 'bool':
      return Boolean(value);
    default: {
      // int64, without `long`: a string is parsed, a {low, high} pair joined, anything else left unset
      if (typeof value === 'string') return parseInt(value, 10);
      if (typeof value === 'number') return value;
      if (typeof value === 'object') {
        // a null map value throws reading `low`, as protobufjs' generated code does
        const bits = value as { low: number; high: number };
        return new protobuf.util.LongBits(bits.low >>> 0, bits.high >>> 0).toNumber(false);
      }
      return undefined;
    }
  }
}

/** protobufjs' Type.fromObject: the message of a plain object, its fields converted to their types. */
function fromObject(type: MessageType, value: unknown, depth = 0): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  if (!type.fields.length) return message;
  if (!isObject(value)) throw TypeError(`.${type.fullName}: object expected`);
  if (depth > RECURSION_LIMIT) throw Error('maximum nesting depth exceeded');
  for (const field of type.fields) {
    const item = value[field.name];
    if (field.map) {
      if (!item) continue;
      if (!isObject(item)) throw TypeError(`${field.fullName}: object expected`);
      const entries: Record<string, unknown> = {};
      for (const key of Object.keys(item)) {
        const converted = valueFromObject(field, item[key], depth, false);
        if (converted !== undefined)
          Object.defineProperty(entries, key, {
            value: converted,
            enumerable: true,
            writable: true,
            configurable: true,
          });
      }
      message[field.name] = entries;
    } else if (field.repeated) {
      if (!item) continue;
      if (!Array.isArray(item)) throw TypeError(`${field.fullName}: array expected`);
      message[field.name] = Array.from(item, (entry) => valueFromObject(field, entry, depth, true));
    } else if (field.resolved?.kind === 'enum' || item != null) {
      const converted = valueFromObject(field, item, depth, false);
      if (converted !== undefined) message[field.name] = converted;
    }
  }
  return message;
}

/** A value in its JSON form; undefined for an enum value the public enum lacks (left out). */
function valueToObject(field: Field, value: unknown, depth: number): unknown {
  const type = field.resolved;
  if (type?.kind === 'enum') return type.publicNames.get(value as number);
  if (type) return toObject(type, value as Record<string, unknown>, depth + 1);
  return field.type === 'int64' ? String(value) : value;
}

/**
 * protobufjs' Type.toObject with { longs: String, enums: String, defaults: true, arrays: true, objects: true }, except
 * that enum values outside the public enum are left out (see the top of this file).
 */
function toObject(type: MessageType, message: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  if (!type.fields.length) return object;
  if (depth > RECURSION_LIMIT) throw Error('max depth exceeded');
  // Every field present, in protobufjs' key order: lists, then maps, then the others, each by field number.
  for (const field of type.byNumber) if (field.repeated) object[field.name] = [];
  for (const field of type.byNumber) if (field.map) object[field.name] = {};
  for (const field of type.byNumber) {
    if (field.repeated || field.map) continue;
    const resolved = field.resolved;
    object[field.name] =
      resolved?.kind === 'enum'
        ? resolved.publicNames.get(resolved.first)
        : resolved
          ? null
          : SCALAR_DEFAULT[field.type];
  }
  for (const field of type.byNumber) {
    const value = message[field.name];
    if (field.map) {
      const keys = value ? Object.keys(value) : [];
      if (!keys.length) continue;
      const entries: Record<string, unknown> = {};
      for (const key of keys) {
        const entry = valueToObject(field, (value as Record<string, unknown>)[key], depth);
        if (entry !== undefined)
          Object.defineProperty(entries, key, { value: entry, enumerable: true, writable: true, configurable: true });
      }
      object[field.name] = entries;
    } else if (field.repeated) {
      if (value && (value as unknown[]).length)
        object[field.name] = (value as unknown[])
          .map((entry) => valueToObject(field, entry, depth))
          .filter((entry) => entry !== undefined);
    } else if (value != null && own(message, field.name)) object[field.name] = valueToObject(field, value, depth);
  }
  return object;
}

type Writer = protobuf.Writer;
type ScalarWrite = 'double' | 'int32' | 'int64' | 'bool' | 'string';

/** protobufjs' Type.encode: fields by number, lists of numbers and enums packed (proto3). */
function encode(type: MessageType, message: Record<string, unknown>, writer: Writer, depth = 0): Writer {
  if (depth > RECURSION_LIMIT) throw Error('max depth exceeded');
  for (const field of type.byNumber) {
    const value = message[field.name];
    const resolved = field.resolved;
    const scalar = (resolved?.kind === 'enum' ? 'int32' : field.type) as ScalarWrite;
    const wireType = resolved?.kind === 'message' ? undefined : WIRE_TYPE[scalar];
    const nested = (item: unknown, into: Writer) =>
      encode(resolved as MessageType, item as Record<string, unknown>, into, depth + 1);
    if (field.map) {
      if (value == null || !own(message, field.name)) continue;
      const entries = value as Record<string, unknown>;
      for (const key of Object.keys(entries)) {
        writer
          .uint32(((field.id << 3) | 2) >>> 0)
          .fork()
          .uint32(10)
          .string(key);
        if (wireType === undefined) nested(entries[key], writer.uint32(18).fork()).ldelim().ldelim();
        else
          writer
            .uint32(16 | wireType)
            [scalar](entries[key] as never)
            .ldelim();
      }
    } else if (field.repeated) {
      const items = value as unknown[] | undefined;
      if (items == null || !items.length) continue;
      if (wireType !== undefined && scalar !== 'string') {
        writer.uint32(((field.id << 3) | 2) >>> 0).fork();
        for (const item of items) writer[scalar](item as never);
        writer.ldelim();
      } else {
        for (const item of items) {
          if (wireType === undefined) nested(item, writer.uint32(((field.id << 3) | 2) >>> 0).fork()).ldelim();
          else writer.uint32(((field.id << 3) | wireType) >>> 0)[scalar](item as never);
        }
      }
    } else if (value != null && own(message, field.name)) {
      if (wireType === undefined) nested(value, writer.uint32(((field.id << 3) | 2) >>> 0).fork()).ldelim();
      else writer.uint32(((field.id << 3) | wireType) >>> 0)[scalar](value as never);
    }
  }
  return writer;
}

/** Unset sub-messages come out of toObject as null: the public API omits them instead. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value))
      if (field !== null && field !== undefined) out[key] = dropNulls(field);
    return out;
  }
  return value;
}

export function toJsonObject(typeName: string, value: object): Record<string, unknown> {
  const type = messageOf(typeName);
  return dropNulls(toObject(type, fromObject(type, value))) as Record<string, unknown>;
}

export function toProtobuf(typeName: string, value: object): Uint8Array {
  const type = messageOf(typeName);
  return encode(type, fromObject(type, value), protobuf.Writer.create()).finish();
}

/**
 * Throws protobufjs' TypeError (e.g. `.hawkscan.HawkscanConf.app: object expected`) when a plain object cannot be
 * a message of this type: a sub-message that is not an object, a list that is not an array.
 */
export function assertConvertible(typeName: string, value: unknown): void {
  fromObject(messageOf(typeName), value);
}

/** The public value names of an enum (e.g. `user.UserOrganization.Permissions`), in declaration order. */
export function enumNames(typeName: string): string[] {
  const type = types.get(typeName);
  if (type?.kind !== 'enum') throw new Error(`no such enum type: ${typeName}`);
  return [...type.publicNames.values()];
}

const NUMBER_TYPES = new Set(['double', 'int32', 'int64']);
const MAX_PROBLEMS = 10;

/**
 * The problems of a request object against a message type, each naming its path: keys the message does not have,
 * and values of the wrong kind (fromObject would silently coerce or drop them). Empty: it conforms.
 * Follows the proto3 JSON mapping: int64 may be a string of digits, enums are names.
 */
export function messageProblems(typeName: string, value: unknown, path = ''): string[] {
  const problems: string[] = [];
  const check = (type: MessageType, object: unknown, at: string) => {
    if (!object || typeof object !== 'object' || Array.isArray(object))
      return void problems.push(`${at || '(root)'}: must be an object`);
    for (const [key, item] of Object.entries(object)) {
      if (problems.length >= MAX_PROBLEMS) return;
      const field = type.byName.get(key);
      const where = at ? `${at}.${key}` : key;
      if (!field) problems.push(`${where}: unknown key`);
      else if (item !== null && item !== undefined) {
        if (field.map) {
          if (!item || typeof item !== 'object' || Array.isArray(item)) problems.push(`${where}: must be an object`);
          else for (const [k, v] of Object.entries(item)) checkValue(field, v, `${where}.${k}`);
        } else if (field.repeated) {
          if (!Array.isArray(item)) problems.push(`${where}: must be a list`);
          else item.forEach((v, i) => checkValue(field, v, `${where}[${i}]`));
        } else checkValue(field, item, where);
      }
    }
  };
  const checkValue = (field: Field, item: unknown, where: string) => {
    const resolved = field.resolved;
    if (resolved?.kind === 'message') return check(resolved, item, where);
    if (resolved?.kind === 'enum') {
      if (typeof item !== 'string' || item === UNSPECIFIED || !own(resolved.values, item))
        problems.push(`${where}: must be one of ${[...resolved.publicNames.values()].join(', ')}`);
    } else if (field.type === 'string') {
      if (typeof item !== 'string') problems.push(`${where}: must be a string`);
    } else if (field.type === 'bool') {
      if (typeof item !== 'boolean') problems.push(`${where}: must be true or false`);
    } else if (NUMBER_TYPES.has(field.type)) {
      if (typeof item !== 'number' && !(typeof item === 'string' && /^-?\d{1,19}$/.test(item)))
        problems.push(`${where}: must be a number`);
    }
  };
  check(messageOf(typeName), value, path);
  return problems;
}
