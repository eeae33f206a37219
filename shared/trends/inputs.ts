import * as z from 'zod/mini';

// Request inputs of the trends operations (docs/GOVERNANCE.md, Trends). Free of storage imports: the route table
// loads them.

const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/** The longest period a trends request covers, in days. */
export const MAX_TREND_DAYS = 365;
export const DEFAULT_TREND_DAYS = 30;

/** GET .../trends: `days`, the period ending today (UTC), 1 to 365 (default 30). */
export const trendsQuery = schema(() =>
  z.object({
    days: z
      .pipe(
        z.optional(z.string().check(z.regex(/^\s*\d*\s*$/, `must be a whole number of days, 1 to ${MAX_TREND_DAYS}`))),
        z.transform((v) => (v === undefined || v.trim() === '' ? DEFAULT_TREND_DAYS : Number(v))),
      )
      .check(
        z.refine((n) => n >= 1 && n <= MAX_TREND_DAYS, `must be a whole number of days, 1 to ${MAX_TREND_DAYS}`),
        z.describe(`Days up to today (UTC), 1 to ${MAX_TREND_DAYS} (default ${DEFAULT_TREND_DAYS}).`),
      ),
  }),
);
