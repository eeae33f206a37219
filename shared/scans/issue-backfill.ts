import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { inParallel, queryItems } from '../db/query.ts';
import type { Outcome } from '../db/backfill.ts';
import { config } from '../config.ts';
import { alertsOfScan } from '../results/scan-repository.ts';
import { type FindingRecord, issueId, HAWKSCAN_STREAM } from '../results/model.ts';
import { recordDetections, rulesOfEnvironment } from '../results/finding-repository.ts';
import { carriedRules, issueTemplatesOf } from '../findings/scan-findings.ts';
import { carryIssueRules } from '../findings/rule-write.ts';

// The issues of data written before them (npm run migrate, npm start on an older data directory; docs/ISSUES.md,
// Upgrade): each finding record gets its issue (from its last scan's alert's CWE), its detection item, and a
// finding that joins an issue with a triaged detection takes that triage when it has none of its own.

type Unassigned = Pick<FindingRecord, 'findingHash' | 'lastScanId' | 'pluginId' | 'requestMethod' | 'uri' | 'param'>;

/** Sets the issue on a finding record that lacks it (a write of the current code may have set it first: then left). */
async function setIssue(appId: string, envId: string, f: Unassigned, id: string, cweId: string): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.finding(appId, envId, f.findingHash),
        UpdateExpression: 'SET issueId = :issue, cweId = :cwe',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(issueId)',
        ExpressionAttributeValues: { ':issue': id, ':cwe': cweId },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** The CWE of each alert of these scans, by scan and plugin ('' for a deleted scan's: its category then). */
async function cwesOf(appId: string, envId: string, scanIds: Set<string>): Promise<Map<string, string>> {
  const cwes = new Map<string, string>();
  await inParallel([...scanIds], 8, async (scanId) => {
    for (const alert of await alertsOfScan({ applicationId: appId, environmentId: envId, scanId }))
      cwes.set(`${scanId}\n${alert.pluginId}`, alert.cweId);
  });
  return cwes;
}

/**
 * Assigns the finding records of an environment written before issues to them (idempotent): their issue and
 * detection, then the triage of each issue to its detections without a rule of their own (carriedRules).
 */
export async function assignEnvironmentIssues(env: {
  organizationId: string;
  applicationId: string;
  environmentId: string;
}): Promise<Outcome> {
  const { applicationId: appId, environmentId: envId } = env;
  const { pk, skPrefix } = keys.findingsOfEnvironment(appId, envId);
  const all: FindingRecord[] = [];
  const unassigned: Unassigned[] = [];
  for await (const item of queryItems({ partition: pk, skPrefix })) {
    const finding = fromItem<FindingRecord>(item)!;
    all.push(finding);
    if (finding.issueId === undefined) unassigned.push(finding);
  }
  if (unassigned.length === 0) return 'current';
  const [cwes, templates] = await Promise.all([
    cwesOf(appId, envId, new Set(unassigned.map((f) => f.lastScanId))),
    issueTemplatesOf(appId),
  ]);
  const assigned: FindingRecord[] = [];
  await inParallel(unassigned, 8, async (f) => {
    const cweId = cwes.get(`${f.lastScanId}\n${f.pluginId}`) ?? '';
    const id = issueId(
      {
        applicationId: appId,
        environmentId: envId,
        cweId,
        pluginId: f.pluginId,
        method: f.requestMethod,
        uri: f.uri,
        param: f.param,
      },
      templates,
    );
    if (await setIssue(appId, envId, f, id, cweId)) assigned.push({ ...(f as FindingRecord), issueId: id, cweId });
  });
  await recordDetections(
    env,
    assigned.map((f) => ({ ...f, stream: f.stream ?? HAWKSCAN_STREAM })),
  );
  const byHash = new Map(all.map((f) => [f.findingHash, f]));
  for (const f of assigned) byHash.set(f.findingHash, f);
  await carryIssueRules(env, carriedRules([...byHash.values()], [], await rulesOfEnvironment(env)));
  return assigned.length ? 'updated' : 'current';
}

/** The table's marker that every finding record has its issue (npm start then skips this step). */
export async function markIssuesAssigned(tableName = config.tableName): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName, Item: { ...keys.tableIssuesAssigned(), entity: 'migration' } }));
}
