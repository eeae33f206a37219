import * as z from 'zod/mini';
import { caseInsensitiveEnum, enumListParam, pageSizeParam, pageTokenParam } from '../lists.ts';

// Request inputs of the identity operations. Kept free of storage imports so the route table stays light.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/** GET /api/v1/org/{orgId}/members */
export const listMembersQuery = schema(() =>
  z.object({
    pageSize: pageSizeParam(),
    pageToken: pageTokenParam(),
    sortField: z.optional(z.enum(['id'], { error: 'must be id' })),
    sortDir: caseInsensitiveEnum(['asc', 'desc']),
    pattern: z
      .optional(z.string().check(z.maxLength(256, 'must be at most 256 characters')))
      .check(z.describe('Case-insensitive part of the name or e-mail.')),
    roles: enumListParam(['OWNER', 'ADMIN', 'MEMBER']),
  }),
);
export type ListMembersQuery = z.output<typeof listMembersQuery>;
