import { keys } from '../db/keys.ts';
import { batchGet } from '../db/query.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { conditionFailed, fromItem, named } from '../db/items.ts';
import { config } from '../config.ts';
import { auditEntry } from '../audit/entries.ts';
import { notFound } from '../errors.ts';
import { accessibleApplication, accessibleEnvironment } from '../applications/access.ts';
import { environmentsOfApp } from '../applications/environment-repository.ts';
import type { Caller } from '../context/caller.ts';
import { DEFAULT_SLA_DAYS, type SlaDays } from './model.ts';
import { effectiveDays } from './sla-days.ts';
import type { SlaOverrideBody } from './inputs.ts';
import { slaRecheckPut } from './overdue.ts';

// SLA overrides (docs/GOVERNANCE.md, Overrides): an application, or one of its environments, may set its own days
// for some severities. A finding's days come from its environment's override, else its application's, else the
// organization's policy, severity by severity. Each override is one item in the application's partition, so that
// deleting the application or the environment deletes it with the rest of its data.

type SeverityDays = Partial<SlaDays>;

interface SlaOverrideRecord {
  applicationId: string;
  environmentId?: string;
  days: SeverityDays;
  updatedAt: number;
  updatedBy: string;
}

/** hawk.SlaOverrideDays: the severities the override sets (0: inherited). */
const overrideView = (days: SeverityDays | undefined) => ({
  High: days?.High ?? 0,
  Medium: days?.Medium ?? 0,
  Low: days?.Low ?? 0,
});

/**
 * GET /api/v1/app/{appId}/sla (getApplicationSla): the application's override and its environments' overrides, with
 * the days that apply in each. Cost: the application's environments (one Query) and one BatchGetItem.
 */
export async function getApplicationSla(caller: Caller, appId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: false });
  const environments = await environmentsOfApp(appId);
  const scopes = environments.map((e) => ({ applicationId: appId, environmentId: e.environmentId }));
  const items = await batchGet([
    keys.slaPolicy(app.organizationId),
    keys.applicationSla(appId),
    ...scopes.map((s) => keys.environmentSla(appId, s.environmentId)),
  ]);
  // The organization's policy is the one item without an application.
  const records = items.map((i) => fromItem<SlaOverrideRecord>(i)!);
  const orgDays = records.find((r) => !r.applicationId)?.days as SlaDays | undefined;
  const appOverride = records.find((r) => r.applicationId && !r.environmentId);
  const envOverride = new Map(records.filter((r) => r.environmentId).map((r) => [r.environmentId!, r]));
  const organizationDays = orgDays ?? { ...DEFAULT_SLA_DAYS };
  return {
    applicationId: appId,
    organizationId: app.organizationId,
    organizationDays,
    override: overrideView(appOverride?.days),
    days: effectiveDays(organizationDays, appOverride?.days),
    updatedAt: appOverride ? new Date(appOverride.updatedAt).toISOString() : '',
    updatedBy: appOverride?.updatedBy ?? '',
    environments: environments
      .map((env) => {
        const own = envOverride.get(env.environmentId);
        return {
          environmentId: env.environmentId,
          environmentName: env.name,
          override: overrideView(own?.days),
          days: effectiveDays(organizationDays, appOverride?.days, own?.days),
          updatedAt: own ? new Date(own.updatedAt).toISOString() : '',
          updatedBy: own?.updatedBy ?? '',
        };
      })
      .sort((a, b) => a.environmentName.localeCompare(b.environmentName)),
  };
}

/** The override item's writes: put (days) or delete (undefined), on condition that its owner still exists. */
function overrideWrites(
  scope: { applicationId: string; environmentId?: string },
  days: SeverityDays | undefined,
  caller: Caller,
  now: number,
): TransactItem[] {
  const key = scope.environmentId
    ? keys.environmentSla(scope.applicationId, scope.environmentId)
    : keys.applicationSla(scope.applicationId);
  const owner = scope.environmentId
    ? keys.environment(scope.applicationId, scope.environmentId)
    : keys.application(scope.applicationId);
  const live = named('ownerGone', {
    ConditionCheck: {
      TableName: config.tableName,
      Key: owner,
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleting)',
    },
  });
  if (days === undefined) {
    const removal = { Delete: { TableName: config.tableName, Key: key, ConditionExpression: 'attribute_exists(pk)' } };
    return [live, named('overrideGone', removal)];
  }
  const record: SlaOverrideRecord = { ...scope, days, updatedAt: now, updatedBy: caller.userId };
  return [live, { Put: { TableName: config.tableName, Item: { ...key, entity: 'slaOverride', ...record } } }];
}

/** Sets (days) or removes (undefined) an override, with its APPLICATION_POLICY_MODIFIED entry, in one transaction. */
async function changeOverride(
  caller: Caller,
  orgId: string,
  scope: { applicationId: string; appName: string; environmentId?: string; envName?: string },
  days: SeverityDays | undefined,
) {
  const now = Date.now();
  const payload = { policy: 'sla', ...scope, ...(days ? { days } : { removed: true }) };
  try {
    await transactWrite([
      ...overrideWrites(scope, days, caller, now),
      slaRecheckPut(orgId, now),
      auditEntry(caller, orgId, 'APPLICATION_POLICY_MODIFIED', payload, now),
    ]);
  } catch (error) {
    const where = scope.environmentId
      ? `environment ${scope.environmentId} in application ${scope.applicationId}`
      : `application ${scope.applicationId}`;
    if (conditionFailed(error, 'ownerGone')) throw notFound(`${where} not found`);
    if (conditionFailed(error, 'overrideGone')) throw notFound(`${where} has no SLA override`);
    throw error;
  }
}

const daysOf = (body: SlaOverrideBody): SeverityDays =>
  Object.fromEntries(Object.entries(body.days).filter(([, n]) => n !== undefined)) as SeverityDays;

/** PUT /api/v1/app/{appId}/sla (updateApplicationSla). */
export async function updateApplicationSla(caller: Caller, appId: string, body: SlaOverrideBody) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  await changeOverride(caller, app.organizationId, { applicationId: appId, appName: app.name }, daysOf(body));
  return getApplicationSla(caller, appId);
}

/** DELETE /api/v1/app/{appId}/sla (deleteApplicationSla): its findings follow the organization's days again. */
export async function deleteApplicationSla(caller: Caller, appId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  await changeOverride(caller, app.organizationId, { applicationId: appId, appName: app.name }, undefined);
}

/** PUT /api/v1/app/{appId}/env/{envId}/sla (updateEnvironmentSla). */
export async function updateEnvironmentSla(caller: Caller, appId: string, envId: string, body: SlaOverrideBody) {
  const { app, env } = await accessibleEnvironment(caller, appId, envId, { teamRestricted: true });
  const scope = { applicationId: appId, appName: app.name, environmentId: envId, envName: env.name };
  await changeOverride(caller, app.organizationId, scope, daysOf(body));
  return getApplicationSla(caller, appId);
}

/** DELETE /api/v1/app/{appId}/env/{envId}/sla (deleteEnvironmentSla): its application's days apply again. */
export async function deleteEnvironmentSla(caller: Caller, appId: string, envId: string) {
  const { app, env } = await accessibleEnvironment(caller, appId, envId, { teamRestricted: true });
  const scope = { applicationId: appId, appName: app.name, environmentId: envId, envName: env.name };
  await changeOverride(caller, app.organizationId, scope, undefined);
}
