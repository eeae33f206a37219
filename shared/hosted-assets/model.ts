import { type OrganizationAssetKind } from '../storage/objects.ts';
import * as z from 'zod/mini';

// Hosted assets' model (docs/HOSTED-ASSETS.md): an organization's named document as stored, and the name rule. Records,
// types and pure rules only (docs/LAYOUT.md, Layers): it imports the kernel and other resources' model.ts, never a
// repository.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

export interface OrganizationAssetRecord {
  organizationId: string;
  kind: OrganizationAssetKind;
  name: string;
  /** The current stored version: every update writes a new object, so a reader never sees a partial one. */
  version: string;
  objectKey: string;
  sizeBytes: number;
  updatedAt: number;
  updatedBy: string;
  /** What the kind lists besides the name (a configuration's type, a policy's display name...). */
  details: Record<string, string>;
}

/** At most 64 characters (docs/API.md, Limits), letters, digits, `_` and `-`. */
export const configNameSchema = schema(() =>
  z
    .string()
    .check(
      z.maxLength(64, 'must be at most 64 characters'),
      z.regex(/^[a-zA-Z0-9_-]+$/, 'must contain only letters, digits, _ and -'),
    ),
);
