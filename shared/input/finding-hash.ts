import * as z from 'zod/mini';

/** Builds a schema at load, marked side-effect free: bundlers drop it from functions that never use it. */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/** A finding's hash as requests name it (triage, retests): SHA-256 in hex, either case, taken lower-case. */
export const findingHashSchema = schema(() =>
  z.pipe(
    z.string().check(z.regex(/^[0-9a-fA-F]{64}$/, 'must be a SHA-256 finding hash (64 hex digits)')),
    z.transform((h) => h.toLowerCase()),
  ),
);
