import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { collect, getItem, queryItems, rememberItem } from '../db/query.ts';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { config } from '../config.ts';
import { badRequest } from '../errors.ts';
import type { TransactItem } from '../db/transactions.ts';
import { entityWrite } from '../db/entity-write.ts';
import { run as runKind } from './entities.ts';
import type { PerchRun, PerchDevice, DeviceDriver } from './model.ts';

// Storage of hosted scans (docs/HOSTED-SCANS.md): an application's run (`#PERCH` in its partition), the
// organization's queue of runs waiting for an agent, and its agents (devices). Every change of a run's state is
// built by runChange below, the one place a run's status is written.

/**
 * An idle device's poll writes its heartbeat at most this often (docs/HOSTED-SCANS.md, Idle agents); a carrying
 * one's as often as its offline window needs (heartbeatWriteAfterMs, agents.ts).
 */
export const IDLE_HEARTBEAT_MS = 5 * 60_000;

/**
 * A device heard from within the offline window is ONLINE (computed from its last heartbeat; no sweeper needed); an
 * idle one's window is longer by IDLE_HEARTBEAT_MS, since its polls write the heartbeat that much less often.
 */
export const isOnline = (device: Pick<PerchDevice, 'lastHeartbeatAt' | 'scanKey' | 'releasedAt'>, now = Date.now()) =>
  now - device.lastHeartbeatAt <=
  config.perchOfflineAfterSeconds * 1000 + (idleBeating(device) ? IDLE_HEARTBEAT_MS : 0);

/**
 * Idle, and heard from since its last run ended: its polls beat at the idle cadence. A device freed of a run without
 * a word since (its agent killed, the run ended for it) keeps the carrying window, so it reads OFFLINE in time.
 */
export const idleBeating = (device: Pick<PerchDevice, 'lastHeartbeatAt' | 'scanKey' | 'releasedAt'>) =>
  !device.scanKey && device.lastHeartbeatAt >= (device.releasedAt ?? 0);

export async function getRun(appId: string, consistent = false): Promise<PerchRun | undefined> {
  const out = await db.send(
    new GetCommand({ TableName: config.tableName, Key: keys.perchRun(appId), ConsistentRead: consistent }),
  );
  return fromItem<PerchRun>(out.Item);
}

/** The device (the poll's own read of it goes in its first round trip: functions/poll-device-command.ts). */
export async function getDevice(orgId: string, deviceId: string): Promise<PerchDevice | undefined> {
  return fromItem<PerchDevice>(await getItem(keys.perchDevice(orgId, deviceId)));
}

/** An organization keeps at most this many devices: a new one replaces the one silent the longest. */
export const MAX_DEVICES_PER_ORG = 100;

/** The organization's devices (at most MAX_DEVICES_PER_ORG, one Query). */
export async function devicesOf(orgId: string): Promise<PerchDevice[]> {
  const { pk, skPrefix } = keys.perchDevicesOfOrg(orgId);
  const items = await collect(queryItems({ partition: pk, skPrefix, pageLimit: MAX_DEVICES_PER_ORG + 1 }));
  return items.map((item) => fromItem<PerchDevice>(item)!);
}

/**
 * The runs waiting in the organization's queue, oldest first, read lazily (an idle agent's poll reads one page
 * when the oldest is one it may take).
 */
export async function* queuedRuns(
  orgId: string,
): AsyncGenerator<{ scanKey: string; applicationId: string; key: { pk: string; sk: string } }> {
  const entries = queryItems({
    partition: keys.perchQueueOfOrg(orgId).pk,
    pageLimit: 1,
    growing: true,
    consistent: true,
  });
  for await (const item of entries)
    yield {
      scanKey: item.scanKey as string,
      applicationId: item.applicationId as string,
      key: { pk: item.pk as string, sk: item.sk as string },
    };
}

/**
 * The organization's queue version (docs/HOSTED-SCANS.md, Idle agents; 0 before its first run): a counter on its
 * slots item that every change which may let an idle agent take a run bumps in its own transaction (a run queued, a
 * slot given back, a higher limit). Strongly consistent: a version read after a commit is that commit's or a later
 * one. The poll reads it in its first round trip (pollReads, agents.ts).
 */
export async function queueVersion(orgId: string): Promise<number> {
  const slots = await getItem(keys.perchSlots(orgId), { consistent: true });
  return Number(slots?.queueVersion ?? 0);
}

/** Bumps the organization's queue version in the transaction that queues a run (queueVersion). */
export const queueVersionBump = (orgId: string): TransactItem => ({
  Update: {
    TableName: config.tableName,
    Key: keys.perchSlots(orgId),
    UpdateExpression: 'SET entity = :entity ADD queueVersion :one',
    ExpressionAttributeValues: { ':entity': 'perchSlots', ':one': 1 },
  },
});

/** The queue entry of a run. */
export const queueEntry = (run: PerchRun) => ({
  ...keys.perchQueued(run.organizationId, run.createdAt, run.scanKey),
  entity: 'perchQueued',
  scanKey: run.scanKey,
  applicationId: run.applicationId,
});

/**
 * The write that takes a run from `before` (as read; undefined: none yet) to `after`, conditioned on `before`
 * still being what is stored (same run, same state), so concurrent changes are reported as a conflict (at
 * `runChanged`), with its projections: its slot in the organization's limit (projections/run-slot.ts). The one
 * place a run's state is written: events of scan starts and ends hook in here.
 */
export function runChange(before: PerchRun | undefined, after: PerchRun): TransactItem[] {
  const condition = before && {
    expression: 'scanKey = :scanKey AND #state = :state AND updatedAt = :updatedAt',
    names: { '#state': 'state' },
    values: { ':scanKey': before.scanKey, ':state': before.state, ':updatedAt': before.updatedAt },
  };
  const change = { key: keys.perchRun(after.applicationId), before, after, name: 'runChanged' };
  return entityWrite(runKind, { ...change, replace: true, ...(condition && { condition }) }, undefined);
}

/** The organization's running scans and its limit (an operator's own, else the service's). */
export async function slotsOf(orgId: string): Promise<{ running: number; limit: number }> {
  const out = await db.send(
    new GetCommand({ TableName: config.tableName, Key: keys.perchSlots(orgId), ConsistentRead: true }),
  );
  return {
    running: Math.max(0, Number(out.Item?.running ?? 0)),
    limit: Number(out.Item?.limit ?? config.perchMaxRunningScans),
  };
}

/**
 * Deleting an application takes its run with it: a run still holding one of the organization's slots gives it
 * back in the deletion's transaction (conditioned on the run as read, like every change of a run).
 */
export async function deletedApplicationSlot(appId: string): Promise<TransactItem[]> {
  const run = await getRun(appId, true);
  if (!run || run.state !== 'RUNNING' || !run.holdsSlot) return [];
  return runChange(run, { ...run, holdsSlot: false, updatedAt: Date.now() });
}

/** `npm run admin -- set-scan-concurrency`: the organization's own limit of running hosted scans. */
export async function setScanConcurrency(orgId: string, limitText: string) {
  const limit = Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw badRequest(`--limit must be a whole number from 1 to 1000, got "${limitText}"`);
  const org = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.organization(orgId) }));
  if (!org.Item) throw badRequest(`--org: no organization ${orgId}`);
  await db.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.perchSlots(orgId),
      // A higher limit may let a queued run start: the queue's version moves (queueVersion).
      UpdateExpression: 'SET #limit = :limit, entity = :entity ADD queueVersion :one',
      ExpressionAttributeNames: { '#limit': 'limit' },
      ExpressionAttributeValues: { ':limit': limit, ':entity': 'perchSlots', ':one': 1 },
    }),
  );
  return { organizationId: orgId, limit, running: (await slotsOf(orgId)).running };
}

/**
 * Frees a device of the run it carried (no-op condition failure when it already moved on is the caller's concern),
 * keeping which run it was: a hosted runner's stop tells a runner that took a run from one that took none by it.
 */
export const deviceRelease = (orgId: string, deviceId: string, scanKey: string): TransactItem => ({
  Update: {
    TableName: config.tableName,
    Key: keys.perchDevice(orgId, deviceId),
    UpdateExpression: 'SET lastScanKey = :scanKey, releasedAt = :now REMOVE scanKey, applicationId',
    ConditionExpression: 'scanKey = :scanKey',
    ExpressionAttributeValues: { ':scanKey': scanKey, ':now': Date.now() },
  },
});

/**
 * Ends a run its agent carries, in one transaction with whatever else the caller adds: the run's change, its device
 * freed, and its slot in the organization's concurrency limit given back (updateRun, uploadProfileScanResult).
 */
export const carriedRunEnd = (run: PerchRun, after: PerchRun, deviceId: string): TransactItem[] => [
  ...runChange(run, after),
  deviceRelease(run.organizationId, deviceId, run.scanKey),
];

/**
 * Whether `caller` may drive `device` (docs/HOSTED-SCANS.md, Whose device it is): a session of the user who
 * registered it; a hosted runner's token only the device it registered itself, and a member's own session never a
 * runner's device.
 */
export const drives = (caller: DeviceDriver, device: Pick<PerchDevice, 'userId' | 'launchedFor'>) =>
  device.userId === caller.userId && device.launchedFor === caller.launchedFor;

/** The device, when `caller` drives it; undefined for an unknown device and another's alike (no existence oracle). */
export async function drivenDevice(
  caller: DeviceDriver,
  orgId: string,
  deviceId: string,
): Promise<PerchDevice | undefined> {
  const device = await getDevice(orgId, deviceId);
  return device && drives(caller, device) ? device : undefined;
}

/**
 * A poll's heartbeat (docs/HOSTED-SCANS.md, Idle agents): the device `caller` drives as read, its heartbeat written
 * only once the stored one is `writeAfterMs(device)` old (an idle agent's polls then write once per many polls).
 */
export async function pollHeartbeat(
  caller: DeviceDriver,
  orgId: string,
  deviceId: string,
  writeAfterMs: (device: PerchDevice) => number,
  now = Date.now(),
): Promise<PerchDevice | undefined> {
  const device = await drivenDevice(caller, orgId, deviceId);
  if (!device || now - device.lastHeartbeatAt < writeAfterMs(device)) return device;
  return heartbeat(caller, orgId, deviceId, now);
}

/**
 * Records a heartbeat of a device `caller` drives; answers the device, or undefined when it is not a device of the
 * organization that `caller` drives (nothing written then).
 */
export async function heartbeat(
  caller: DeviceDriver,
  orgId: string,
  deviceId: string,
  now = Date.now(),
): Promise<PerchDevice | undefined> {
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.perchDevice(orgId, deviceId),
        UpdateExpression: 'SET lastHeartbeatAt = :now',
        ConditionExpression: `attribute_exists(pk) AND userId = :userId AND ${caller.launchedFor ? 'launchedFor = :run' : 'attribute_not_exists(launchedFor)'}`,
        ExpressionAttributeValues: {
          ':now': now,
          ':userId': caller.userId,
          ...(caller.launchedFor ? { ':run': caller.launchedFor } : {}),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    // The device as written: a poll may answer from it for a while (prefetchItems' memory, agents.ts pollReads).
    if (out.Attributes) rememberItem(out.Attributes);
    return fromItem<PerchDevice>(out.Attributes);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}

/**
 * The run moved on while a call of its agent was being written (stopped, ended for a silent agent, or its scan
 * recorded by another call): the call writes nothing and answers the run as it is.
 */
export class RunMovedOn extends Error {
  constructor(readonly run: PerchRun) {
    super(`scan ${run.scanKey} changed meanwhile (${run.state})`);
  }
}
