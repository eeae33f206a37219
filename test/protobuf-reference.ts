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

/**
 * The JSON answers carry only public enum values: a field (or list or map entry) whose value is UNSPECIFIED, or a
 * number the enum does not name, is left out (shared/proto/encoding.ts). The same rule over protobufjs' reflection.
 */
export function publicEnumsOnly(type: protobuf.Type, object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...object };
  for (const field of type.fieldsArray) {
    if (!(field.name in out)) continue;
    const resolved = field.resolve().resolvedType;
    const convert = (value: unknown): unknown => {
      if (resolved instanceof protobuf.Enum)
        return typeof value === 'string' && value !== 'UNSPECIFIED' && value in resolved.values ? value : undefined;
      if (resolved instanceof protobuf.Type && value && typeof value === 'object')
        return publicEnumsOnly(resolved, value as Record<string, unknown>);
      return value;
    };
    const value = out[field.name];
    if (field.map && value && typeof value === 'object') {
      const entries: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(value)) {
        const converted = convert(entry);
        if (converted !== undefined)
          Object.defineProperty(entries, key, {
            value: converted,
            enumerable: true,
            writable: true,
            configurable: true,
          });
      }
      out[field.name] = entries;
    } else if (field.repeated && Array.isArray(value))
      out[field.name] = value.map(convert).filter((entry) => entry !== undefined);
    else if (value !== null && value !== undefined) {
      const converted = convert(value);
      if (converted === undefined) delete out[field.name];
      else out[field.name] = converted;
    }
  }
  return out;
}

/** protobufjs' toObject of a message as the JSON answers give it: nulls dropped, public enum values only. */
export function referenceJson(type: protobuf.Type, message: protobuf.Message): Record<string, unknown> {
  return publicEnumsOnly(type, dropNulls(type.toObject(message, TO_OBJECT)) as Record<string, unknown>);
}

/** A protobuf answer decoded by protobufjs, in the form of the JSON answer (to compare the two). */
export function fromProtobuf(typeName: string, bytes: Uint8Array): Record<string, unknown> {
  const type = referenceType(typeName);
  return referenceJson(type, type.decode(bytes));
}
