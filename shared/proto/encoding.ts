import protobuf from 'protobufjs/light.js';
import descriptor from './descriptor.json' with { type: 'json' };

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
