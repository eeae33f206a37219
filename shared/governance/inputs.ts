import * as z from 'zod/mini';

// Request inputs of the governance operations (docs/GOVERNANCE.md). Kept free of storage imports so the route table
// stays light.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses. */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/** Longest SLA or acceptance period, in days (ten years). */
export const MAX_GOVERNANCE_DAYS = 3650;
/** Shortest SLA or acceptance period, in days: no finding is due sooner after its first sighting. */
export const MIN_GOVERNANCE_DAYS = 1;

const days = schema(() =>
  z
    .int()
    .check(
      z.minimum(MIN_GOVERNANCE_DAYS, `must be a whole number of days, at least ${MIN_GOVERNANCE_DAYS}`),
      z.maximum(MAX_GOVERNANCE_DAYS, `must be at most ${MAX_GOVERNANCE_DAYS} days`),
    ),
);

// The SLA bodies are strict, nested objects too: an unknown field (a severity such as "Critical") is refused (400
// naming it) rather than ignored with a 200 that changed nothing.

/** PUT /api/v1/org/{orgId}/sla (updateSlaPolicy). */
export const slaPolicyBody = schema(() =>
  z
    .strictObject({
      days: z.strictObject({ High: days, Medium: days, Low: days }),
      riskAcceptance: z.optional(z.strictObject({ defaultDays: z.nullish(days), maxDays: z.nullish(days) })),
    })
    .check(
      z.refine(
        (b) =>
          !b.riskAcceptance?.defaultDays ||
          !b.riskAcceptance.maxDays ||
          b.riskAcceptance.defaultDays <= b.riskAcceptance.maxDays,
        'riskAcceptance.defaultDays must not exceed riskAcceptance.maxDays',
      ),
    ),
);
export type SlaPolicyBody = z.output<typeof slaPolicyBody>;

/**
 * PUT /api/v1/app/{appId}/sla and /api/v1/app/{appId}/env/{envId}/sla (updateApplicationSla, updateEnvironmentSla):
 * the days of the severities that differ; the others are inherited.
 */
export const slaOverrideBody = schema(() =>
  z
    .strictObject({
      days: z.strictObject({ High: z.optional(days), Medium: z.optional(days), Low: z.optional(days) }),
    })
    .check(
      z.refine(
        (b) => b.days.High !== undefined || b.days.Medium !== undefined || b.days.Low !== undefined,
        'days: name at least one of High, Medium, Low (to inherit every one, delete the override)',
      ),
    ),
);
export type SlaOverrideBody = z.output<typeof slaOverrideBody>;
