import protobuf from 'protobufjs/light.js';
import descriptor from '../shared/proto/descriptor.json' with { type: 'json' };

// protobufjs' reflection runtime over the whole descriptor: what the tests decode protobuf answers with, and what
// shared/proto/encoding.ts (which encodes without it, for the size of the bundles) is checked against.

const root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);
root.resolveAll();

export const TO_OBJECT: protobuf.IConversionOptions = {
  longs: String,
  enums: String,
  defaults: true,
  arrays: true,
  objects: true,
};

export function referenceType(name: string): protobuf.Type {
  return root.lookupType(name);
}

/** Unset sub-messages come out of toObject as null: the public API omits them. */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value))
      if (field !== null && field !== undefined) out[key] = dropNulls(field);
    return out;
  }
  return value;
}

/** A protobuf answer decoded by protobufjs, in the form of the JSON answer (to compare the two). */
export function fromProtobuf(typeName: string, bytes: Uint8Array): Record<string, unknown> {
  const type = referenceType(typeName);
  return dropNulls(type.toObject(type.decode(bytes), TO_OBJECT)) as Record<string, unknown>;
}
