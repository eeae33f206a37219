import * as z from 'zod/mini';
import { pageTokenParam } from '../lists.ts';

// Request inputs of the overview's reads (docs/GOVERNANCE.md, Applications by risk). Free of storage imports: the
// route table loads them.

const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/** Applications one page of listApplicationRisk answers at most (each one's environments are read for the page). */
export const MAX_RISK_PAGE = 50;
export const DEFAULT_RISK_PAGE = 25;
/** Applications listApplicationRisk ranks at most (it reads them all, whole, to order them). */
export const MAX_RISK_RANKED = 5_000;

export const RISK_SORT_FIELDS = ['risk', 'name', 'lastScannedAt'] as const;
export type RiskSortField = (typeof RISK_SORT_FIELDS)[number];

/** GET /api/v1/org/{orgId}/apps/risk. */
export const applicationRiskQuery = schema(() =>
  z.object({
    sortField: z
      .optional(z.enum(RISK_SORT_FIELDS))
      .check(
        z.describe(
          "risk (default): open High, then Medium, then Low findings, then the last scans' untriaged ones by " +
            'severity, then errored last scans; name; lastScannedAt.',
        ),
      ),
    sortDir: z
      .optional(z.enum(['ASC', 'DESC']))
      .check(z.describe('ASC or DESC (default: DESC for risk and lastScannedAt, ASC for name).')),
    pageSize: z
      .pipe(
        z.optional(z.string().check(z.regex(/^\s*\d*\s*$/, `must be a whole number, 1 to ${MAX_RISK_PAGE}`))),
        z.transform((v) => (v === undefined || v.trim() === '' ? DEFAULT_RISK_PAGE : Number(v))),
      )
      .check(
        z.refine((n) => n >= 1 && n <= MAX_RISK_PAGE, `must be a whole number, 1 to ${MAX_RISK_PAGE}`),
        z.describe(`Applications per page, 1 to ${MAX_RISK_PAGE} (default ${DEFAULT_RISK_PAGE}).`),
      ),
    pageToken: pageTokenParam(),
    query: z.optional(
      z.string().check(z.maxLength(255), z.describe('Only applications whose name contains this (any case).')),
    ),
    applicationStatus: z
      .optional(z.enum(['ACTIVE', 'ENV_INCOMPLETE']))
      .check(z.describe('ACTIVE (has environments) or ENV_INCOMPLETE (none yet): only those.')),
  }),
);
export type ApplicationRiskQuery = z.infer<typeof applicationRiskQuery>;
