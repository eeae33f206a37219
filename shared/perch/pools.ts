import { accessibleApplication } from '../applications/access.ts';
import type { ApplicationRecord } from '../applications/model.ts';
import { getTeams } from '../applications/team-repository.ts';
import { auditEntry } from '../audit/entries.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { config } from '../config.ts';
import type { Caller } from '../context/caller.ts';
import { keys } from '../db/keys.ts';
import { conditionFailed, fromItem, named } from '../db/items.ts';
import { getItem } from '../db/query.ts';
import { badRequest, conflict } from '../errors.ts';
import type { AgentPoolsBody, HostedScanSettingsBody } from './inputs.ts';

// Agent pools (docs/HOSTED-SCANS.md, Agent pools): an agent registers with labels, an application's hosted settings
// may require labels, and its runs go only to agents carrying them. A pool is a label the organization gives one
// team: only that team's applications may require it.

/** The organization's pools as stored: one item, each label with its team, replaced whole. */
interface PoolsRecord {
  pools: { label: string; teamId: string }[];
  /** Moves with every replacement: a settings change is conditioned on the pools it checked. */
  version: number;
}

async function poolsOf(orgId: string): Promise<PoolsRecord> {
  const stored = fromItem<PoolsRecord>(await getItem(keys.perchPools(orgId)));
  return { pools: stored?.pools ?? [], version: stored?.version ?? 0 };
}

/** Whether an agent with `labels` may take a run requiring `required` (every one of them, exactly). */
export const carriesLabels = (labels: readonly string[] | undefined, required: readonly string[] | undefined) =>
  !required?.length || required.every((label) => labels?.includes(label));

/**
 * The first of `labels` that is another team's pool, as a 400 naming the field; undefined when the application may
 * require them all.
 */
function poolRefusal(app: ApplicationRecord, labels: string[], { pools }: PoolsRecord, field: string) {
  const foreign = pools.find((pool) => labels.includes(pool.label) && pool.teamId !== app.teamId);
  return foreign
    ? badRequest(
        `${field}: ${foreign.label} is the agent pool of a team application ${app.applicationId} does not belong to: only that team's applications may require it`,
      )
    : undefined;
}

/**
 * The labels a run of `app` requires, checked against the organization's pools when it starts (its team may have
 * changed, or the label become another team's pool, since its settings were saved): 400 naming the label otherwise.
 */
export async function runLabels(app: ApplicationRecord): Promise<string[] | undefined> {
  const labels = app.requiredAgentLabels;
  if (!labels?.length) return undefined;
  const refused = poolRefusal(app, labels, await poolsOf(app.organizationId), 'requiredLabels');
  if (refused) throw refused;
  return labels;
}

/** GET /api/v1/app/{appId}/perch/settings (getHostedScanSettings). */
export async function getHostedScanSettings(caller: Caller, appId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  return { requiredLabels: app.requiredAgentLabels ?? [] };
}

/**
 * PUT /api/v1/app/{appId}/perch/settings (updateHostedScanSettings): the labels replace the application's, checked
 * against the pools as read and written only while those pools and the application's team are unchanged.
 */
export async function updateHostedScanSettings(caller: Caller, appId: string, body: HostedScanSettingsBody) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  if (app.applicationType !== 'CLOUD')
    throw badRequest(`application ${appId} is not a CLOUD application: only hosted scans are carried out by agents`);
  const pools = await poolsOf(app.organizationId);
  const refused = poolRefusal(app, body.requiredLabels, pools, 'requiredLabels');
  if (refused) throw refused;
  const team = app.teamId
    ? { condition: 'teamId = :team', values: { ':team': app.teamId } }
    : { condition: 'attribute_not_exists(teamId)', values: {} };
  const items: TransactItem[] = [
    named('applicationChanged', {
      Update: {
        TableName: config.tableName,
        Key: keys.application(appId),
        UpdateExpression: body.requiredLabels.length
          ? 'SET requiredAgentLabels = :labels'
          : 'REMOVE requiredAgentLabels',
        ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleting) AND ${team.condition}`,
        ExpressionAttributeValues: {
          ...team.values,
          ...(body.requiredLabels.length ? { ':labels': body.requiredLabels } : {}),
        },
      },
    }),
    named('poolsChanged', poolsUnchanged(app.organizationId, pools.version)),
    auditEntry(caller, app.organizationId, 'APPLICATION_MODIFIED', {
      applicationId: appId,
      appName: app.name,
      change: 'hostedScanSettings',
      requiredLabels: body.requiredLabels,
    }),
  ];
  try {
    await transactWrite(items);
  } catch (error) {
    if (conditionFailed(error, 'applicationChanged') || conditionFailed(error, 'poolsChanged'))
      throw conflict(`application ${appId} or the organization's agent pools changed meanwhile: try again`);
    throw error;
  }
  return { requiredLabels: body.requiredLabels };
}

/** A condition that the pools item is still at `version` (0: none stored yet). */
const poolsUnchanged = (orgId: string, version: number): TransactItem => ({
  ConditionCheck: {
    TableName: config.tableName,
    Key: keys.perchPools(orgId),
    ConditionExpression: version ? 'version = :version' : 'attribute_not_exists(version)',
    ...(version ? { ExpressionAttributeValues: { ':version': version } } : {}),
  },
});

/** GET /api/v1/org/{orgId}/perch/pools (listAgentPools): each pool's label and team (its name; empty once deleted). */
export async function listAgentPools(caller: Caller, orgId: string) {
  await caller.authorize(orgId);
  const { pools } = await poolsOf(orgId);
  const teams = new Map(
    (
      await getTeams(
        orgId,
        pools.map((pool) => pool.teamId),
      )
    ).map((t) => [t.teamId, t.name]),
  );
  return { pools: pools.map((pool) => ({ ...pool, teamName: teams.get(pool.teamId) ?? '' })) };
}

/**
 * PUT /api/v1/org/{orgId}/perch/pools (replaceAgentPools): the organization's pools become those given, each team
 * one of the organization's (400 naming the entry otherwise). Applications already requiring a label that became
 * another team's pool keep their settings, and their starts are refused, naming the label (runLabels).
 */
export async function replaceAgentPools(caller: Caller, orgId: string, body: AgentPoolsBody) {
  await caller.authorize(orgId);
  const known = new Set(
    (
      await getTeams(
        orgId,
        body.pools.map((pool) => pool.teamId),
      )
    ).map((team) => team.teamId),
  );
  const unknown = body.pools.findIndex((pool) => !known.has(pool.teamId));
  if (unknown >= 0)
    throw badRequest(`pools.${unknown}.teamId: no team ${body.pools[unknown].teamId} in organization ${orgId}`);
  const current = await poolsOf(orgId);
  const record: PoolsRecord = { pools: body.pools, version: current.version + 1 };
  try {
    await transactWrite([
      named('poolsChanged', {
        Put: {
          TableName: config.tableName,
          Item: { ...keys.perchPools(orgId), entity: 'perchPools', ...record },
          ConditionExpression: current.version ? 'version = :version' : 'attribute_not_exists(pk)',
          ...(current.version ? { ExpressionAttributeValues: { ':version': current.version } } : {}),
        },
      }),
      auditEntry(caller, orgId, 'ORG_SETTINGS_MODIFIED', { setting: 'agentPools', pools: body.pools }),
    ]);
  } catch (error) {
    if (conditionFailed(error, 'poolsChanged')) throw conflict('the agent pools changed meanwhile: read them again');
    throw error;
  }
  return listAgentPools(caller, orgId);
}
