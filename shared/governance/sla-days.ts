import { keys } from '../db/keys.ts';
import { batchGet } from '../db/query.ts';
import { fromItem } from '../db/items.ts';
import { DEFAULT_SLA_DAYS, type SlaDays } from './model.ts';

// The SLA days that apply to findings (docs/GOVERNANCE.md, Overrides): severity by severity, the environment's
// override, else its application's, else the organization's policy. Kept apart from the override operations so that
// the writers of derived data (trends) can read it without importing the application layer.

type SeverityDays = Partial<SlaDays>;

/** Where a finding is: the scope whose days apply to it. */
export interface SlaScope {
  applicationId: string;
  environmentId: string;
}

/** The days per severity that apply in each scope. */
export type SlaDaysOf = (scope: SlaScope) => SlaDays;

/**
 * The days that apply to findings in `scopes`: one BatchGetItem of the organization's policy and the overrides of
 * the scopes' applications and environments (each key once).
 */
export async function slaDaysResolver(orgId: string, scopes: Iterable<SlaScope>): Promise<SlaDaysOf> {
  const apps = new Set<string>();
  const envs = new Map<string, SlaScope>();
  for (const s of scopes) {
    apps.add(s.applicationId);
    envs.set(`${s.applicationId}#${s.environmentId}`, s);
  }
  const items = await batchGet(
    [
      keys.slaPolicy(orgId),
      ...[...apps].map((appId) => keys.applicationSla(appId)),
      ...[...envs.values()].map((s) => keys.environmentSla(s.applicationId, s.environmentId)),
    ],
    ['applicationId', 'environmentId', 'days'],
  );
  let orgDays: SlaDays = { ...DEFAULT_SLA_DAYS };
  const overrides = new Map<string, SeverityDays>();
  for (const item of items) {
    // The organization's policy is the one item without an application.
    const record = fromItem<{ applicationId?: string; environmentId?: string; days: SlaDays }>(item)!;
    if (!record.applicationId) orgDays = record.days;
    else overrides.set(`${record.applicationId}#${record.environmentId ?? ''}`, record.days);
  }
  return ({ applicationId, environmentId }) =>
    effectiveDays(orgDays, overrides.get(`${applicationId}#`), overrides.get(`${applicationId}#${environmentId}`));
}

/** Severity by severity: the environment's days, else the application's, else the organization's. */
export const effectiveDays = (org: SlaDays, app?: SeverityDays, env?: SeverityDays): SlaDays => ({
  High: env?.High ?? app?.High ?? org.High,
  Medium: env?.Medium ?? app?.Medium ?? org.Medium,
  Low: env?.Low ?? app?.Low ?? org.Low,
});
