import { keys } from '../db/keys.ts';
import { config } from '../config.ts';
import { batchGet } from '../db/query.ts';
import { fromItem } from '../db/items.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { conflict, badRequest } from '../errors.ts';
import { retryOnConflict, transactionConflict } from '../db/retry.ts';
import { auditEntries } from '../audit/entries.ts';
import { getMemberships } from '../identity/membership-repository.ts';
import { getUsers } from '../identity/user-repository.ts';
import type { FindingRecord } from '../results/model.ts';
import type { Caller } from '../context/caller.ts';
import type { AssignFindingsBody } from './inputs.ts';
import { triageTarget } from './triage.ts';

// POST /api/v1/org/{orgId}/app/{appId}/env/{envId}/findings/assignee (assignFindings, ours; docs/API.md, Assignees):
// who is to act on findings of an environment, kept on their finding records (later scans that detect them again
// keep it: findings/scan-findings.ts) and shown by the findings report (assigneeId, assigneeName). The assignee must be
// a member of the organization. Each finding's change is written with its ALERT_RULE_TRIAGED audit entry, and moves
// the environment's triage version, so that a scan's publication that read the records before retries on them.

/** Findings per transaction: each one's update and audit entry, and the triage version's. */
const PER_TRANSACTION = 45;

type Env = { applicationId: string; environmentId: string };

function assignUpdate(env: Env, hash: string, assigneeId: string, now: number): TransactItem {
  const key = keys.finding(env.applicationId, env.environmentId, hash);
  return {
    Update: {
      TableName: config.tableName,
      Key: { pk: key.pk, sk: key.sk },
      ConditionExpression: 'attribute_exists(pk)',
      ...(assigneeId
        ? {
            UpdateExpression: 'SET assigneeId = :a, assignedAt = :t',
            ExpressionAttributeValues: { ':a': assigneeId, ':t': now },
          }
        : { UpdateExpression: 'REMOVE assigneeId, assignedAt' }),
    },
  };
}

const versionMove = (env: Env): TransactItem => ({
  Update: {
    TableName: config.tableName,
    Key: keys.triageVersion(env.applicationId, env.environmentId),
    UpdateExpression: 'SET entity = :e ADD version :one',
    ExpressionAttributeValues: { ':e': 'triageVersion', ':one': 1 },
  },
});

/** The hashes of these that the environment has a finding record of (strongly consistent). */
async function knownHashes(env: Env, hashes: string[]): Promise<Set<string>> {
  const items = await batchGet(
    [...new Set(hashes)].map((h) => keys.finding(env.applicationId, env.environmentId, h)),
    ['findingHash'],
    true,
  );
  return new Set(items.map((item) => fromItem<Pick<FindingRecord, 'findingHash'>>(item)!.findingHash));
}

export async function assignFindings(
  caller: Caller,
  orgId: string,
  appId: string,
  envId: string,
  body: AssignFindingsBody,
) {
  const { env } = await triageTarget(caller, appId, envId, orgId);
  const assigneeId = body.assigneeId;
  if (assigneeId && (await getMemberships(orgId, [assigneeId])).length === 0)
    throw badRequest(`assigneeId: ${assigneeId} is not a member of organization ${orgId}`);
  const [assignee] = assigneeId ? await getUsers([assigneeId]) : [];
  const hashes = [...new Set(body.findingHashes)];
  const known = await knownHashes(env, hashes);
  const assigned = hashes.filter((h) => known.has(h));
  const now = Date.now();
  for (let i = 0; i < assigned.length; i += PER_TRANSACTION) {
    const chunk = assigned.slice(i, i + PER_TRANSACTION);
    const audits = auditEntries(
      caller,
      orgId,
      'ALERT_RULE_TRIAGED',
      chunk.map((findingHash) => ({
        action: assigneeId ? 'ASSIGN' : 'UNASSIGN',
        applicationId: appId,
        environmentId: envId,
        findingHash,
        assigneeId,
        assigneeName: assignee?.fullName ?? '',
      })),
      now,
    );
    // A record deleted meanwhile (its environment's delete) fails the condition: nothing of the chunk is written.
    await retryOnConflict(
      { conflict: transactionConflict(), exhausted: () => conflict(`findings of environment ${envId} changed; retry`) },
      () => transactWrite([...chunk.map((h) => assignUpdate(env, h, assigneeId, now)), versionMove(env), ...audits]),
    );
  }
  return {
    organizationId: orgId,
    applicationId: appId,
    environmentId: envId,
    assigneeId,
    assigneeName: assignee?.fullName ?? '',
    results: body.findingHashes.map((findingHash) =>
      known.has(findingHash)
        ? { findingHash, success: true, error: '' }
        : { findingHash, success: false, error: `finding ${findingHash} not found in environment ${envId}` },
    ),
  };
}
