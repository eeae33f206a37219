import protobuf from 'protobufjs/light.js';
// The whole descriptor (descriptor.json) here and locally; a deployed function's bundle gets only the messages its
// code names instead (infra/proto-descriptors.ts aliases #proto-descriptor when it bundles the function).
import descriptor from '#proto-descriptor' with { type: 'json' };

// Response bodies are built as plain objects and always pass through their protobuf message type, so the JSON
// follows the proto3 JSON mapping exactly as the public API's does (int64 as strings, int32 as numbers, enums by
// name, every field present with its default, `[]` for empty lists, never null), and the protobuf form carries
// the same content.
const root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);

const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: String, defaults: true, arrays: true, objects: true };

export function messageType(name: string): protobuf.Type {
  return root.lookupType(name);
}

/** Unset sub-messages come out of toObject as null: the public API omits them instead. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) if (field !== null && field !== undefined) out[key] = dropNulls(field);
    return out;
  }
  return value;
}

export function toJsonObject(typeName: string, value: object): Record<string, unknown> {
  const type = messageType(typeName);
  return dropNulls(type.toObject(type.fromObject(value), TO_OBJECT)) as Record<string, unknown>;
}

export function toProtobuf(typeName: string, value: object): Uint8Array {
  const type = messageType(typeName);
  return type.encode(type.fromObject(value)).finish();
}

export function fromProtobuf(typeName: string, bytes: Uint8Array): Record<string, unknown> {
  const type = messageType(typeName);
  return dropNulls(type.toObject(type.decode(bytes), TO_OBJECT)) as Record<string, unknown>;
}

const NUMBER_TYPES = new Set(['double', 'float', 'int32', 'uint32', 'sint32', 'fixed32', 'sfixed32', 'int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const MAX_PROBLEMS = 10;

/**
 * The problems of a request object against a message type, each naming its path: keys the message does not have,
 * and values of the wrong kind (protobufjs' fromObject would silently coerce or drop them). Empty: it conforms.
 * Follows the proto3 JSON mapping: int64 may be a string of digits, enums are names.
 */
export function messageProblems(typeName: string, value: unknown, path = ''): string[] {
  const problems: string[] = [];
  const check = (type: protobuf.Type, object: unknown, at: string) => {
    if (!object || typeof object !== 'object' || Array.isArray(object)) return void problems.push(`${at || '(root)'}: must be an object`);
    for (const [key, item] of Object.entries(object)) {
      if (problems.length >= MAX_PROBLEMS) return;
      const field = type.fields[key];
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
  const checkValue = (field: protobuf.Field, item: unknown, where: string) => {
    const resolved = field.resolve().resolvedType;
    if (resolved instanceof protobuf.Type) return check(resolved, item, where);
    if (resolved instanceof protobuf.Enum) {
      if (typeof item !== 'string' || !(item in resolved.values)) problems.push(`${where}: must be one of ${Object.keys(resolved.values).join(', ')}`);
    } else if (field.type === 'string') {
      if (typeof item !== 'string') problems.push(`${where}: must be a string`);
    } else if (field.type === 'bool') {
      if (typeof item !== 'boolean') problems.push(`${where}: must be true or false`);
    } else if (NUMBER_TYPES.has(field.type)) {
      if (typeof item !== 'number' && !(typeof item === 'string' && /^-?\d{1,19}$/.test(item))) problems.push(`${where}: must be a number`);
    }
  };
  check(messageType(typeName), value, path);
  return problems;
}
