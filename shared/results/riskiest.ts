import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { collect, getItem, inParallel } from '../db/query.ts';
import { retryOnConflict, transactionConflict, type RetriesExhausted } from '../db/retry.ts';
import { transactWrite } from '../db/transactions.ts';
import { forEveryOrganization, type Outcome } from '../db/backfill.ts';
import { getApplication, getApplications } from '../applications/application-repository.ts';
import {
  environmentStreamsChanges,
  environmentsOfOrg,
  getEnvironmentIncludingDeleting,
} from '../applications/environment-repository.ts';
import { riskiestEntry } from '../applications/entities.ts';
import {
  applicationHealthOf,
  entryOf,
  riskOrder,
  riskRank,
  type EnvironmentRecord,
  type HealthSource,
  type RiskiestEntry,
} from '../applications/model.ts';
import { derivedWrites } from '../db/entity-write.ts';
import { findingsOfEnvironment } from './finding-repository.ts';
import { currentStreams } from './streams.ts';
import { type FindingRecord, openIssueCountsOf } from './model.ts';

// The overview's riskiest applications for data written before them (npm run migrate, npm start on an older data
// directory; docs/GOVERNANCE.md, The overview): each environment gets its open issues by severity from its finding
// records (its application's figures move with them, and its entry), each application its ranked entry; then each
// organization is marked (the overview then reads the entries) and the table (npm start then skips this step).

/** Runs `step` until it commits or finds nothing to do; 'conflict' when it lost every race (left for the next run). */
async function untilCommitted(step: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await retryOnConflict({ conflict: transactionConflict() }, step);
  } catch (error) {
    if ((error as Partial<RetriesExhausted>).retryReason) return 'conflict';
    throw error;
  }
}

/**
 * Counts the open issues of an environment written before them (or before `openIssuesInfo`): from its finding records, set by its write
 * (conditioned on it still uncounted and unchanged: a publication meanwhile counts it, or makes this read again), with
 * its application's figures.
 */
export function countEnvironmentOpenIssues(appId: string, envId: string): Promise<Outcome> {
  return untilCommitted(async () => {
    const env = await getEnvironmentIncludingDeleting(appId, envId);
    if (!env) return 'gone';
    // An environment counted before openIssuesInfo is counted again, with it (the findings report sums all four).
    if (env.deleting || env.openIssuesInfo !== undefined) return 'current';
    const app = await getApplication(appId);
    if (!app) return 'current';
    const records = await collect(
      findingsOfEnvironment(env, ['findingHash', 'issueId', 'severity', 'fixedAt', 'verifiedFixedAt']),
    );
    const openIssues = openIssueCountsOf(records as FindingRecord[]);
    const streams = env.streams ?? (await currentStreams(env));
    await transactWrite(await environmentStreamsChanges([{ env, streams, openIssues }]));
    return 'updated';
  });
}

/**
 * Gives a live application written before them its ranked entry (none without untriaged findings), conditioned on
 * the application unchanged since read (its write would otherwise move an entry it did not know of).
 */
export function addRiskiestEntry(appId: string): Promise<Outcome> {
  return untilCommitted(async () => {
    const app = await getApplication(appId);
    const entry = entryOf(app);
    if (!app || !entry) return app ? 'current' : 'gone';
    const key = keys.riskiestApplication(app.organizationId, riskRank(entry));
    if (await getItem(key)) return 'current';
    const version =
      app.healthVersion === undefined
        ? { expression: 'attribute_not_exists(healthVersion)', values: {} }
        : { expression: 'healthVersion = :v', values: { ':v': app.healthVersion } };
    await transactWrite([
      {
        ConditionCheck: {
          TableName: config.tableName,
          Key: keys.application(appId),
          ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleting) AND #name = :name AND ${
            app.teamId === undefined ? 'attribute_not_exists(teamId)' : 'teamId = :team'
          } AND ${version.expression}`,
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: {
            ':name': app.name,
            ...(app.teamId !== undefined && { ':team': app.teamId }),
            ...version.values,
          },
        },
      },
      ...derivedWrites(riskiestEntry, undefined, app, undefined),
    ]);
    return 'updated';
  });
}

/** The organization's marker that its riskiest entries are complete (the overview then reads them). */
export async function markOrganizationRiskiestComplete(orgId: string, tableName = config.tableName): Promise<void> {
  await db.send(
    new PutCommand({ TableName: tableName, Item: { ...keys.riskiestReady(orgId), entity: 'riskiestReady' } }),
  );
}

/** Once every environment and application is: marks each organization's entries complete, then the table. */
export async function markRiskiestComplete(tableName = config.tableName): Promise<void> {
  await forEveryOrganization(tableName, (orgId) => markOrganizationRiskiestComplete(orgId, tableName));
  await db.send(new PutCommand({ TableName: tableName, Item: { ...keys.tableRiskiest(), entity: 'migration' } }));
}

const COUNTED: (keyof FindingRecord)[] = ['findingHash', 'issueId', 'severity', 'fixedAt', 'verifiedFixedAt'];

/**
 * The riskiest applications' entries recomputed from the environments' records and finding records alone (the
 * ranked entries and the applications' figures are checked against it): every live environment of the organization,
 * its open issues by severity from its finding records (openIssueCountsOf), its application's figures their sums
 * (applicationHealthOf), ranked by riskOrder, those `keep` lets through.
 */
export async function riskiestRecomputed(orgId: string, keep: (entry: RiskiestEntry) => boolean) {
  const byApp = new Map<string, HealthSource[]>();
  const envs: EnvironmentRecord[] = [];
  for await (const env of environmentsOfOrg(orgId, 'name', true, 1000, true)) if (!env.deleting) envs.push(env);
  await inParallel(envs, 16, async (env) => {
    const counts = openIssueCountsOf((await collect(findingsOfEnvironment(env, COUNTED))) as FindingRecord[]);
    byApp.set(env.applicationId, [...(byApp.get(env.applicationId) ?? []), { ...env, ...counts }]);
  });
  const apps = await getApplications([...byApp.keys()]);
  return apps
    .filter((app) => app.organizationId === orgId)
    .map((app) => entryOf({ ...app, health: applicationHealthOf(byApp.get(app.applicationId)!) }))
    .filter((entry) => entry !== undefined && keep(entry))
    .map((entry) => entry!)
    .sort(riskOrder);
}
