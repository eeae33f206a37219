import * as z from 'zod/mini';
import { ACTIVITY_TYPES } from './model.ts';
import {
  caseInsensitiveEnum,
  enumListParam,
  integerParam,
  pageSizeParam,
  pageTokenParam,
  startNotAfterEnd,
} from '../lists.ts';

// Request inputs of the audit list (docs/API.md, Lists): the route table names this schema.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/** GET /api/v1/org/{orgId}/audit (audit.ListAuditRecordsResponse) */
export const auditListQuery = schema(() =>
  z
    .object({
      types: enumListParam(ACTIVITY_TYPES),
      name: z
        .optional(z.string().check(z.maxLength(64)))
        .check(z.describe("Case-insensitive part of the acting user's name.")),
      email: z
        .optional(z.string().check(z.maxLength(64)))
        .check(z.describe("Case-insensitive part of the acting user's e-mail address.")),
      start: integerParam().check(z.describe('Earliest entry time, ms since the epoch (0: unbounded).')),
      end: integerParam().check(z.describe('Latest entry time, ms since the epoch (0: unbounded).')),
      sortField: z.optional(z.enum(['createdDate'], { error: 'must be createdDate' })),
      sortDir: caseInsensitiveEnum(['asc', 'desc']),
      pageSize: pageSizeParam(),
      pageToken: pageTokenParam(),
    })
    .check(startNotAfterEnd()),
);
export type AuditListQuery = z.output<typeof auditListQuery>;
