import * as z from 'zod/mini';
import { TRIAGE_STATUSES } from '../results/model.ts';
import { nameListParam, pageSizeParam, pageTokenParam, uuidListParam } from '../lists.ts';
import { findingHashSchema } from '../input/finding-hash.ts';

// Request inputs of the triage operations (docs/DATA-MODEL.md, Findings). Kept free of storage imports so the route
// table stays light.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

export const MAX_TRIAGE_ACTIONS = 100;
const MAX_NOTE = 4096;

const note = schema(() =>
  z._default(z.string().check(z.maxLength(MAX_NOTE, `must be at most ${MAX_NOTE} characters`)), ''),
);
const optionalUuid = schema(() => z.optional(z.string().check(z.regex(/^[0-9a-fA-F-]{36}$/, 'must be a UUID'))));

/** An ISO 8601 date-time with its zone (`Z` or an offset), to ms. */
const isoDateTime = /* @__NO_SIDE_EFFECTS__ */ () =>
  z.pipe(
    z
      .string()
      .check(
        z.regex(
          /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)$/,
          'must be an ISO 8601 date-time with its zone, e.g. 2026-06-30T00:00:00Z',
        ),
      ),
    z.transform((v, ctx) => {
      const at = Date.parse(v);
      if (Number.isNaN(at)) {
        ctx.issues.push({ code: 'custom', message: 'must be a valid ISO 8601 date-time', input: v });
        return z.NEVER;
      }
      return at;
    }),
  );

/** The actions bulk triage supports (the public description: others are refused). */
export const BULK_TRIAGE_STATUSES = ['FALSE_POSITIVE', 'RISK_ACCEPTED', 'ADD_COMMENT'] as const;

/** POST /api/v1/org/{orgId}/app/{appId}/env/{envId}/findings/triage (application.BulkTriageFindingsByHashRequest). */
export const bulkTriageBody = schema(() =>
  z.object({
    organizationId: optionalUuid,
    applicationId: optionalUuid,
    environmentId: optionalUuid,
    actions: z
      .array(
        z.object({
          findingHash: findingHashSchema,
          status: z.enum(BULK_TRIAGE_STATUSES, { error: `must be one of ${BULK_TRIAGE_STATUSES.join(', ')}` }),
          note,
          expiresAt: z.optional(isoDateTime()),
        }),
      )
      .check(
        z.refine(
          (actions) => actions.every((a) => a.expiresAt === undefined || a.status === 'RISK_ACCEPTED'),
          'expiresAt: only a RISK_ACCEPTED action may carry one',
        ),
        z.minLength(1, 'must have at least one action'),
        z.maxLength(MAX_TRIAGE_ACTIONS, `must have at most ${MAX_TRIAGE_ACTIONS} actions`),
      ),
  }),
);
export type BulkTriageBody = z.output<typeof bulkTriageBody>;

const alertRuleSchema = schema(() =>
  z.object({
    alertCondition: z.object({
      environmentId: z.string().check(z.regex(/^[0-9a-fA-F-]{36}$/, 'must be a UUID')),
      applicationId: optionalUuid,
      pluginId: z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, _ . or -')),
      requestMethod: z.pipe(
        z.string().check(z.regex(/^[A-Za-z]{1,16}$/, 'must be an HTTP method')),
        z.transform((m) => m.toUpperCase()),
      ),
    }),
    path: z._default(z.string().check(z.maxLength(8192)), ''),
    parameterizedPath: z._default(z.string().check(z.maxLength(8192)), ''),
    result: z.enum(TRIAGE_STATUSES, { error: `must be one of ${TRIAGE_STATUSES.join(', ')}` }),
    note,
  }),
);
export type AlertRuleInput = z.output<typeof alertRuleSchema>;

const alertRules = schema(() =>
  z.array(alertRuleSchema).check(z.maxLength(MAX_TRIAGE_ACTIONS, `must have at most ${MAX_TRIAGE_ACTIONS} rules`)),
);

/**
 * POST /api/v1/app/{appId}/alerts/rules/{integrationId} (application.UpsertAlertRulesRequest, January 2026):
 * `alertRuleWrapper.alertRule`, or the deprecated `alertRules`.
 */
export const upsertAlertRulesBody = schema(() =>
  z
    .object({
      alertRuleWrapper: z.optional(
        z.object({
          alertRule: z._default(alertRules, []),
          // The ticket's own title and text when the rules promote to a tracker (docs/TRACKERS.md, Promoting).
          alertRulePromotionDetails: z.optional(
            z.object({
              summary: z.optional(z.string().check(z.maxLength(255, 'must be at most 255 characters'))),
              description: z.optional(
                z.string().check(z.maxLength(MAX_NOTE * 4, `must be at most ${MAX_NOTE * 4} characters`)),
              ),
              projectId: z.optional(z.string().check(z.maxLength(64))),
              issuetypeId: z.optional(z.string().check(z.maxLength(64))),
              promotedId: z.optional(z.string().check(z.maxLength(64))),
            }),
          ),
        }),
      ),
      alertRules: z._default(alertRules, []),
    })
    .check(
      z.refine(
        (b) => (b.alertRuleWrapper?.alertRule.length ?? 0) + b.alertRules.length > 0,
        'must have at least one rule in alertRuleWrapper.alertRule',
      ),
      z.refine(
        (b) => (b.alertRuleWrapper?.alertRule.length ?? 0) + b.alertRules.length <= MAX_TRIAGE_ACTIONS,
        `must have at most ${MAX_TRIAGE_ACTIONS} rules`,
      ),
      z.refine(
        (b) => [...(b.alertRuleWrapper?.alertRule ?? []), ...b.alertRules].every((r) => r.path || r.parameterizedPath),
        'every rule needs a path or parameterizedPath',
      ),
    ),
);
export type UpsertAlertRulesBody = z.output<typeof upsertAlertRulesBody>;

// ---- The organization findings report

/** `date` (YYYY-MM-DD): findings as of the end of that day (UTC). */
const dateParam = schema(() =>
  z
    .optional(
      z.pipe(
        z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')),
        z.transform((v, ctx) => {
          const end = Date.parse(`${v}T23:59:59.999Z`);
          if (Number.isNaN(end) || new Date(end).toISOString().slice(0, 10) !== v) {
            ctx.issues.push({ code: 'custom', message: 'must be a calendar date YYYY-MM-DD', input: v });
            return z.NEVER;
          }
          return end;
        }),
      ),
    )
    .check(z.describe('YYYY-MM-DD: findings as of the end of that day (UTC).')),
);

/** `datetime` (ISO 8601, the public pattern; no zone = UTC): findings as of that moment. */
const datetimeParam = schema(() =>
  z
    .optional(
      z.pipe(
        z
          .string()
          .check(
            z.regex(
              /^\d{4}(-\d\d(-\d\d([T ]\d\d:\d\d(:\d\d)?(\.\d+)?(Z|[+-]\d\d:\d\d)?)?)?)?$/,
              'must be an ISO 8601 date-time, e.g. 2024-06-14T10:30:45Z',
            ),
          ),
        z.transform((v, ctx) => {
          const text = v.replace(' ', 'T');
          const zoned = /T/.test(text) && !/(Z|[+-]\d\d:\d\d)$/.test(text) ? `${text}Z` : text;
          const at = Date.parse(zoned);
          if (Number.isNaN(at)) {
            ctx.issues.push({ code: 'custom', message: 'must be a valid ISO 8601 date-time', input: v });
            return z.NEVER;
          }
          return at;
        }),
      ),
    )
    .check(
      z.describe('ISO 8601 (e.g. 2024-06-14T10:30:45Z): findings as of that moment; takes precedence over `date`.'),
    ),
);

/** GET /api/v1/reports/org/{orgId}/findings */
export const findingsReportQuery = schema(() =>
  z.object({
    appIds: uuidListParam(),
    envs: nameListParam(),
    date: dateParam,
    datetime: datetimeParam,
    pageSize: pageSizeParam(500),
    pageToken: pageTokenParam(),
  }),
);
export type FindingsReportQuery = z.output<typeof findingsReportQuery>;

/**
 * POST /api/v1/org/{orgId}/app/{appId}/env/{envId}/findings/assignee (assignFindings, ours; docs/API.md,
 * Assignees): the findings of one environment to assign, and to whom (empty: unassign). Unknown fields are refused.
 */
export const assignFindingsBody = schema(() =>
  z.strictObject({
    findingHashes: z
      .array(findingHashSchema)
      .check(
        z.minLength(1, 'must name at least one finding'),
        z.maxLength(MAX_TRIAGE_ACTIONS, `must name at most ${MAX_TRIAGE_ACTIONS} findings`),
      ),
    assigneeId: z.union([
      z.literal(''),
      z.pipe(
        z.string().check(z.regex(/^[0-9a-fA-F-]{36}$/, 'must be a user id (UUID), or empty to unassign')),
        z.transform((id) => id.toLowerCase()),
      ),
    ]),
  }),
);
export type AssignFindingsBody = z.output<typeof assignFindingsBody>;
