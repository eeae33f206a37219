import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type OperationReads } from '../db/query.ts';
import { accessibleApplication } from '../applications/access.ts';
import { canSeeTeamResource } from '../applications/model.ts';
import { getApplication, getApplications } from '../applications/application-repository.ts';
import type { Membership, Caller } from '../context/caller.ts';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { cancelledItems, failedConditions, named } from '../db/items.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { config } from '../config.ts';
import { referencedNames, resolveScanSecrets } from '../scans/secret-store.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { putObject } from '../storage/objects-io.ts';
import { objectKeys } from '../storage/objects.ts';
import { scanOfApplication } from '../results/scan-repository.ts';
import {
  carriedRunEnd,
  devicesOf,
  drivenDevice,
  getRun,
  isOnline,
  MAX_DEVICES_PER_ORG,
  pollHeartbeat,
  queuedRuns,
  queueVersion,
  IDLE_HEARTBEAT_MS,
  idleBeating,
  runChange,
  slotsOf,
} from './repository.ts';
import { type PerchDevice, type PerchRun, isActive } from './model.ts';
import { abandonRun, settled, toPerchDevice } from './commands.ts';
import { wakeAgents, wakeListener } from './signals.ts';
import { WAKE_POLL_SECONDS } from './wake.ts';
import { carriesLabels } from './pools.ts';
import { retestStarted } from './retests.ts';
import { MAX_RUN_LOG_BYTES, type PollBody, type RegisterDeviceBody, type RunUpdateBody } from './inputs.ts';

// The agent's side of hosted scans (docs/HOSTED-SCANS.md, The agent): operations of our own. An agent registers
// as a device of its organization, long-polls for its next command (each poll is also its heartbeat),
// acknowledges a command by id before acting on it, and reports its run's progress and log; the scan itself goes
// through the ordinary reporting operations.

/** A poll answers before API Gateway's 29 s, and well within the offline window, so a waiting agent stays ONLINE. */
const maxWaitMs = () => Math.min(25_000, (config.perchOfflineAfterSeconds * 1000) / 2);

const toDevice = (device: PerchDevice) => ({
  deviceId: device.deviceId,
  name: device.name,
  engines: device.engines,
  labels: device.labels ?? [],
  heartbeatSeconds: Math.max(1, Math.floor(maxWaitMs() / 1000)),
  offlineAfterSeconds: config.perchOfflineAfterSeconds,
  // With the wake channel open the agent polls every wakePollSeconds, and at once when woken (Idle agents).
  wakeUrl: config.wakeChannelUrl ?? '',
  wakePollSeconds: config.wakeChannelUrl ? WAKE_POLL_SECONDS : 0,
});

/** Makes room for a new device: the idle one heard from least recently goes when the organization is full. */
async function makeRoom(orgId: string) {
  const devices = await devicesOf(orgId);
  if (devices.length < MAX_DEVICES_PER_ORG) return;
  const idle = devices.filter((device) => !device.scanKey).sort((a, b) => a.lastHeartbeatAt - b.lastHeartbeatAt);
  if (!idle.length || isOnline(idle[0]))
    throw conflict(
      `the organization has ${devices.length} agents, all online or busy (at most ${MAX_DEVICES_PER_ORG}): register an agent again with its device id`,
    );
  await db.send(
    new DeleteCommand({
      TableName: config.tableName,
      Key: keys.perchDevice(orgId, idle[0].deviceId),
      ConditionExpression: 'attribute_not_exists(scanKey)',
    }),
  );
  // Its agent is told nothing more (a connection item left by a failure here ends at its TTL or its first wake's 410).
  await db.send(
    new DeleteCommand({ TableName: config.tableName, Key: keys.perchWakeConnection(orgId, idle[0].deviceId) }),
  );
}

/** GET /api/v1/org/{orgId}/perch/devices: each agent, ONLINE or OFFLINE by its last heartbeat, and its current scan. */
export async function listDevices(caller: Caller, orgId: string) {
  const membership = await caller.authorize(orgId);
  const now = Date.now();
  const devices = (await devicesOf(orgId)).sort(
    (a, b) => a.name.localeCompare(b.name) || a.deviceId.localeCompare(b.deviceId),
  );
  // A run of an application the caller may not see (another team's) is shown as none (docs/API.md, Team rules).
  const carried = [...new Set(devices.flatMap((device) => (device.applicationId ? [device.applicationId] : [])))];
  const visible = new Set(
    (carried.length ? await getApplications(carried) : [])
      .filter((app) => app.organizationId === orgId && canSeeTeamResource(membership, app.teamId))
      .map((app) => app.applicationId),
  );
  const shown = (device: PerchDevice): Partial<PerchDevice> =>
    device.applicationId && visible.has(device.applicationId) ? device : {};
  return {
    devices: devices.map((device) => ({
      deviceId: device.deviceId,
      name: device.name,
      status: isOnline(device, now) ? 'ONLINE' : 'OFFLINE',
      engines: device.engines,
      labels: device.labels ?? [],
      version: device.version,
      createdAt: device.createdAt,
      lastHeartbeatAt: device.lastHeartbeatAt,
      scanKey: shown(device).scanKey ?? '',
      applicationId: shown(device).applicationId ?? '',
    })),
    totalCount: devices.length,
  };
}

/** POST /api/v1/org/{orgId}/perch/devices: a new device, or the same one again (an agent restarting with its id). */
export async function registerDevice(caller: Caller, orgId: string, body: RegisterDeviceBody) {
  // Another's device id is taken for an unknown one (docs/HOSTED-SCANS.md, Whose device it is): a new device, and
  // that one unchanged.
  const known = body.deviceId ? await drivenDevice(caller, orgId, body.deviceId) : undefined;
  if (!known) await makeRoom(orgId);
  if (known?.scanKey && known.applicationId) {
    // It restarted while carrying a run: that run is lost.
    const run = await getRun(known.applicationId, true);
    if (run && run.scanKey === known.scanKey && isActive(run))
      await abandonRun(run, `the agent ${known.name} restarted during the scan; start the scan again`);
  }
  const now = Date.now();
  const device: PerchDevice = {
    deviceId: known?.deviceId ?? randomUUID(),
    organizationId: orgId,
    name: body.name,
    userId: caller.userId,
    engines: body.engines,
    ...(body.labels.length ? { labels: body.labels } : {}),
    version: body.version,
    createdAt: known?.createdAt ?? now,
    lastHeartbeatAt: now,
    // A hosted runner's device is known by its launch token's run, never by its name (any agent may take that name).
    ...(caller.launchedFor ? { launchedFor: caller.launchedFor } : {}),
  };
  await db.send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...keys.perchDevice(orgId, device.deviceId), entity: 'perchDevice', ...device },
    }),
  );
  return toDevice(device);
}

const START_COMMANDS = { PROFILE: 'PROFILE_START', RETEST: 'RETEST_START' } as const;

/** What a retest's agent attacks (docs/HOSTED-SCANS.md, Retests). */
const retestCommand = ({ findingHash, pluginId, method, url, param }: NonNullable<PerchRun['retest']>) => ({
  findingHash,
  pluginId,
  method,
  url,
  param,
});

/** A START or STOP command as the agent receives it. */
function assignment(run: PerchRun, command: 'SCAN_START' | 'SCAN_STOP') {
  return {
    commandId: command === 'SCAN_START' ? run.scanKey : (run.stopCommandId ?? run.scanKey),
    // A profile scan and a retest start with a command of their own: an agent that does not know it leaves it to one
    // that does.
    command: command === 'SCAN_START' && run.kind ? START_COMMANDS[run.kind] : command,
    scanKey: run.scanKey,
    applicationId: run.applicationId,
    ...(command === 'SCAN_START'
      ? {
          env: run.envName,
          config: run.config,
          ...(run.configuration ? { configuration: run.configuration } : {}),
          targetUrl: run.targetUrl,
          allowPrivate: run.allowPrivate,
          ...(run.scanPolicy ? { scanPolicy: run.scanPolicy } : {}),
          ...(run.retest ? { retest: retestCommand(run.retest) } : {}),
          // A queued run's scan gets a whole deadline from its acknowledgement (which sets it a moment later).
          deadline: run.state === 'QUEUED' ? Date.now() + config.perchMaxScanSeconds * 1000 : run.deadlineAt,
        }
      : {}),
  };
}

/**
 * A carrying device's poll writes its heartbeat only once the stored one is this old: the next poll starts within a
 * wait (maxWaitMs) and a poll's own time (POLL_OWN_MS) of it, so a polling device never reads OFFLINE. An idle one's
 * writes it every IDLE_HEARTBEAT_MS, and reads ONLINE that much longer (isOnline): POLL_OWN_MS early, so that an agent
 * polling every WAKE_POLL_SECONDS (as long) writes it at each poll, whatever the clocks of the processes serving them.
 */
const POLL_OWN_MS = 5_000;
export const heartbeatWriteAfterMs = () =>
  Math.max(0, config.perchOfflineAfterSeconds * 1000 - maxWaitMs() - POLL_OWN_MS);
export const IDLE_HEARTBEAT_WRITE_AFTER_MS = IDLE_HEARTBEAT_MS - POLL_OWN_MS;

/**
 * POST .../devices/{deviceId}/poll: records the heartbeat, then answers the device's next command as soon as there
 * is one, or nothing after `waitSeconds`. A device carrying a run gets STOP once the run is no longer its own
 * (stopped, or ended for it); an idle one gets the oldest queued START its owner may see. Offered, not taken: the
 * acknowledgement takes it. 404 unless the caller drives the device (docs/HOSTED-SCANS.md, Whose device it is).
 * An idle poll reads the queue only when its version moved since this device last found nothing there
 * (docs/HOSTED-SCANS.md, Idle agents).
 */
export async function pollCommand(caller: Caller, orgId: string, deviceId: string, body: PollBody) {
  // Armed before the first read: a start or stop between a read and the wait still wakes this poll.
  const wakes = wakeListener(orgId);
  try {
    return await pollWith(wakes, caller, orgId, deviceId, body);
  } finally {
    wakes.close();
  }
}

/** The poll itself, its organization's wakes already listened for. */
async function pollWith(
  wakes: ReturnType<typeof wakeListener>,
  caller: Caller,
  orgId: string,
  deviceId: string,
  body: PollBody,
) {
  // Both read in the request's first round trip, the device perhaps from this process's memory (pollReads).
  // An agent that says it runs something beats at the carrying cadence, whatever its remembered device says.
  const idle = (known: PerchDevice) => !body.running && idleBeating(known);
  const [polled, version] = await Promise.all([
    pollHeartbeat(caller, orgId, deviceId, (known) =>
      idle(known) ? IDLE_HEARTBEAT_WRITE_AFTER_MS : heartbeatWriteAfterMs(),
    ),
    queueVersion(orgId),
  ]);
  // A device remembered carrying a run the agent does not report is read again: that run may have ended since.
  const device = polled?.scanKey && !body.running ? await drivenDevice(caller, orgId, deviceId) : polled;
  if (!device) throw notFound(`device ${deviceId} not found in organization ${orgId}: register again`);
  const owner = await caller.authorize(orgId);
  const seen = new Map<string, boolean>();
  const until = Date.now() + Math.min(body.waitSeconds * 1000, maxWaitMs());
  const running =
    body.running ??
    (device.scanKey && device.applicationId
      ? { scanKey: device.scanKey, applicationId: device.applicationId }
      : undefined);
  if (running)
    for (;;) {
      const command = await stopCommand(device, running);
      if (command || Date.now() >= until) return command ? { command } : {};
      await wakes.wait(Math.min(config.perchPollIntervalMs, until - Date.now()));
    }
  for (let at = version; ; at = await queueVersion(orgId)) {
    // A run requiring labels goes only to an agent carrying them (docs/HOSTED-SCANS.md, Agent pools): the device and
    // the run are read already, so it costs no read.
    const command = await startCommand(
      device,
      at,
      async (run) => carriesLabels(device.labels, run.requiredLabels) && ownerSees(owner, run, seen),
    );
    if (command) return { command };
    // Nothing to take until the queue's version moves: locally a start wakes this poll; on AWS the next poll reads it.
    if (Date.now() >= until || !(await wakes.wait(until - Date.now()))) return {};
  }
}

/**
 * The poll's own reads, in its first round trip beside its authorization, in one strongly consistent BatchGetItem:
 * the device and the queue's version. The organization, the membership and the device are taken from this process's
 * memory of them for PERCH_POLL_MEMORY_SECONDS (docs/HOSTED-SCANS.md, Idle agents): then only the version is read.
 */
export const pollReads: OperationReads = ({ ids }) =>
  ids.orgId && ids.deviceId
    ? {
        items: [keys.perchDevice(ids.orgId, ids.deviceId)],
        consistentItems: [keys.perchSlots(ids.orgId)],
        rememberMs: config.perchPollMemorySeconds * 1000,
      }
    : {};

/** An idle agent looks this far down its organization's queue for a run its owner may see. */
const MAX_QUEUE_LOOKAHEAD = 100;

/**
 * Whether the device's owner may see the run's application (docs/HOSTED-SCANS.md, Whose device it is): a run of a
 * team's application is offered only to agents of the team's members, as the application is shown only to them
 * (docs/API.md, Team rules). `seen` keeps the answers of one poll.
 */
async function ownerSees(owner: Membership, run: PerchRun, seen = new Map<string, boolean>()): Promise<boolean> {
  let visible = seen.get(run.applicationId);
  if (visible === undefined) {
    const app = await getApplication(run.applicationId);
    visible = app?.organizationId === run.organizationId && canSeeTeamResource(owner, app.teamId);
    seen.set(run.applicationId, visible);
  }
  return visible;
}

/** What a carrying device is told about its run: STOP once it is no longer its own and running, else nothing. */
async function stopCommand(device: PerchDevice, running: { scanKey: string; applicationId: string }) {
  const found = await getRun(running.applicationId, true);
  // Only a run this device took is its own: any other (another device's, another organization's) is answered as
  // an unknown one, so its stop command's id is never told.
  const run =
    found?.scanKey === running.scanKey &&
    found.organizationId === device.organizationId &&
    found.deviceId === device.deviceId
      ? found
      : undefined;
  if (run?.state === 'RUNNING') return undefined;
  if (run) return assignment(run, 'SCAN_STOP');
  // Its application (and run) is gone, or it is not its run: stop, with the scan key as the command's id.
  return {
    commandId: running.scanKey,
    command: 'SCAN_STOP' as const,
    scanKey: running.scanKey,
    applicationId: running.applicationId,
  };
}

/**
 * The queue version at which each device last found nothing to take (docs/HOSTED-SCANS.md, Idle agents). Kept by
 * this process (a poll another one answers reads the queue once), for QUEUE_RECHECK_MS at most: the owner may come
 * to see a queued run (a team change) while the queue stays as it was.
 */
const foundNothing = new Map<string, { version: number; at: number }>();
const QUEUE_RECHECK_MS = 5 * 60_000;
const REMEMBERED_DEVICES = 10_000;

/** The START an idle device may take at queue version `version`, reading the queue only when it may offer one. */
async function startCommand(device: PerchDevice, version: number, offered: (run: PerchRun) => Promise<boolean>) {
  // Its labels are part of what it found nothing for: registering again with others may find a run at once.
  const key = `${device.organizationId}/${device.deviceId}/${device.labels?.join(',') ?? ''}`;
  const known = foundNothing.get(key);
  if (known?.version === version && Date.now() - known.at < QUEUE_RECHECK_MS) return undefined;
  foundNothing.delete(key);
  const { command, conclusive } = await queuedStart(device.organizationId, offered);
  if (!command && conclusive) {
    foundNothing.set(key, { version, at: Date.now() });
    if (foundNothing.size > REMEMBERED_DEVICES) foundNothing.delete(foundNothing.keys().next().value!);
  }
  return command;
}

/**
 * The oldest queued run the device's owner may see, as a START when a slot is free. Conclusive unless the answer
 * may change while the queue's version does not: a run waits for a slot (an agent going silent frees one), or
 * stale entries were left for the next poll to drop.
 */
async function queuedStart(orgId: string, offered: (run: PerchRun) => Promise<boolean>) {
  let dropped = 0;
  let examined = 0;
  for await (const queued of queuedRuns(orgId)) {
    if (++examined > MAX_QUEUE_LOOKAHEAD) return { conclusive: true };
    const run = await getRun(queued.applicationId, true);
    if (run?.scanKey === queued.scanKey && run.state === 'QUEUED') {
      if (!(await offered(run))) continue;
      return (await slotFree(orgId))
        ? { command: assignment(run, 'SCAN_START'), conclusive: true }
        : { conclusive: false };
    }
    // Entries whose run is gone (application deleted) or moved on are dropped, so they never block the queue.
    await transactWrite([{ Delete: { TableName: config.tableName, Key: queued.key } }]).catch(() => undefined);
    if (++dropped >= 10) return { conclusive: false };
  }
  return { conclusive: true };
}

/**
 * Whether the organization may start one more scan (docs/HOSTED-SCANS.md, Concurrency). At its limit, the runs of
 * agents gone silent are ended first (OFFLINE is computed, no sweeper ends them), which frees their slots.
 */
async function slotFree(orgId: string): Promise<boolean> {
  const { running, limit } = await slotsOf(orgId);
  if (running < limit) return true;
  const silent = (await devicesOf(orgId)).filter(
    (device) => device.scanKey && device.applicationId && !isOnline(device),
  );
  if (!silent.length) return false;
  for (const device of silent) await settled(await getRun(device.applicationId!, true));
  const after = await slotsOf(orgId);
  return after.running < after.limit;
}

/**
 * POST .../devices/{deviceId}/commands/{commandId}/ack: takes a START (the run becomes the device's, out of the
 * queue) or confirms a STOP. A command acknowledged again by the same device answers alreadyAcknowledged, so a
 * command delivered twice runs once; one another device took answers 409. 404 unless the caller drives the device,
 * for a STOP of a run the device does not carry, and for a START of an application its owner may not see or whose
 * required labels the device lacks.
 */
export async function acknowledgeCommand(
  caller: Caller,
  orgId: string,
  deviceId: string,
  commandId: string,
  appId: string,
) {
  const [device, run] = await Promise.all([drivenDevice(caller, orgId, deviceId), getRun(appId, true)]);
  if (!device) throw notFound(`device ${deviceId} not found in organization ${orgId}: register again`);
  const unknown = () => notFound(`command ${commandId} not found for application ${appId}`);
  if (!run || run.organizationId !== orgId) throw unknown();
  // A STOP is the carrying device's; a START is taken only by an agent whose owner may see the application and
  // which carries the labels the run requires.
  if (run.deviceId === deviceId && (commandId === run.scanKey || commandId === run.stopCommandId))
    return { acknowledged: true, alreadyAcknowledged: commandId === run.scanKey };
  if (
    commandId !== run.scanKey ||
    !carriesLabels(device.labels, run.requiredLabels) ||
    !(await ownerSees(await caller.authorize(orgId), run))
  )
    throw unknown();
  if (run.state !== 'QUEUED') throw conflict(`command ${commandId} is no longer queued (${run.state})`);
  if (device.scanKey) throw conflict(`device ${deviceId} is carrying scan ${device.scanKey}: it takes one at a time`);
  const now = Date.now();
  const taken: PerchRun = {
    ...run,
    state: 'RUNNING',
    phase: 'claimed',
    deviceId,
    deviceName: device.name,
    updatedAt: now,
    // The time it waited in the queue is not taken from the scan's.
    deadlineAt: now + config.perchMaxScanSeconds * 1000,
    holdsSlot: true,
  };
  const items: TransactItem[] = [
    // With its slot in the organization's limit (its projection: the transaction fails at slotsFull at the limit).
    ...runChange(run, taken),
    named('queueEntryGone', {
      Delete: {
        TableName: config.tableName,
        Key: keys.perchQueued(orgId, run.createdAt, run.scanKey),
        ConditionExpression: 'attribute_exists(pk)',
      },
    }),
    named('deviceBusy', {
      Update: {
        TableName: config.tableName,
        Key: keys.perchDevice(orgId, deviceId),
        UpdateExpression: 'SET scanKey = :scanKey, applicationId = :appId, lastHeartbeatAt = :now',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(scanKey)',
        ExpressionAttributeValues: { ':scanKey': run.scanKey, ':appId': appId, ':now': now },
      },
    }),
    ...(run.kind === 'RETEST' ? [retestStarted(run, now)] : []),
  ];
  try {
    await transactWrite(items);
  } catch (error) {
    if (!failedConditions(error).length) throw error;
    // Only the slot failed (the run, its queue entry and the device were as read): the organization is at its limit.
    if (cancelledItems(error)!.every(({ code, name }) => name === 'slotsFull' || code === 'None')) {
      const { running, limit } = await slotsOf(orgId);
      throw conflict(
        `the organization runs ${running} hosted scans, its limit (${limit}): command ${commandId} waits in the queue until one ends`,
      );
    }
    const now = await getRun(appId, true);
    if (now?.scanKey === commandId && now.deviceId === deviceId)
      return { acknowledged: true, alreadyAcknowledged: true };
    throw conflict(`command ${commandId} was taken by another device or stopped meanwhile`);
  }
  // The run is this device's now: the secrets its configuration references go to it, with this answer only
  // (docs/HOSTED-SCANS.md, "Scan secrets").
  const secrets = await resolveScanSecrets(appId, orgId, run.secretNames ?? referencedNames(run.config));
  return { acknowledged: true, alreadyAcknowledged: false, secrets };
}

/**
 * The run `scanKey` of the application, carried by `deviceId`: 404 when the caller does not drive that device (as for
 * an unknown one) or it is not the current run, 409 when another device carries it.
 */
export async function carriedRun(caller: Caller, appId: string, scanKey: string, deviceId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  const orgId = app.organizationId;
  if (!(await drivenDevice(caller, orgId, deviceId)))
    throw notFound(`device ${deviceId} not found in organization ${orgId}: register again`);
  const run = await getRun(appId, true);
  if (!run || run.scanKey !== scanKey)
    throw notFound(`scan ${scanKey} is not the current hosted scan of application ${appId}`);
  if (run.deviceId !== deviceId) throw conflict(`scan ${scanKey} is carried by another device`);
  return run;
}

/**
 * POST /api/v1/app/{appId}/perch/runs/{scanKey}: the carrying agent reports its phase, its scan's id, or the run's
 * end (COMPLETED, or ERROR with the reason), which frees the device. A run that already ended (stopped, or ended
 * for a silent agent) stays as it is: the answer shows its state, and the agent stops.
 */
export async function updateRun(caller: Caller, appId: string, scanKey: string, body: RunUpdateBody) {
  const run = await carriedRun(caller, appId, scanKey, body.deviceId);
  if (!isActive(run)) return { device: toPerchDevice(run) };
  if (body.state === 'ERROR' && !body.error) throw badRequest('error: required when state is ERROR');
  if (body.scanId && run.scanId && body.scanId !== run.scanId)
    throw conflict(`scan ${scanKey} already reported as scan ${run.scanId}`);
  // Only a scan of the run's application is recorded: reportScanRunStarted answers the recorded scan's details.
  if (body.scanId && body.scanId !== run.scanId && !(await scanOfApplication(body.scanId, run)))
    throw badRequest(`scanId: ${body.scanId} is not a scan of application ${appId}`);
  const now = Date.now();
  const ended = body.state !== 'RUNNING';
  const after: PerchRun = {
    ...run,
    state: body.state,
    phase: body.phase ?? (ended ? body.state.toLowerCase() : run.phase),
    scanId: body.scanId ?? run.scanId,
    errors: body.error ? [...run.errors, body.error] : run.errors,
    updatedAt: now,
    ...(ended ? { endedAt: now } : {}),
  };
  try {
    await transactWrite(ended ? carriedRunEnd(run, after, body.deviceId) : runChange(run, after));
  } catch (error) {
    if (!failedConditions(error).length) throw error;
    throw conflict(`scan ${scanKey} changed meanwhile (stopped?): read its status again`);
  }
  // A slot is free: the next queued run can start.
  if (ended) await wakeAgents(run.organizationId);
  return { device: toPerchDevice(after) };
}

/** PUT /api/v1/app/{appId}/perch/runs/{scanKey}/log: the run's whole log so far, replacing what was sent before. */
export async function uploadRunLog(caller: Caller, appId: string, scanKey: string, deviceId: string, body: Buffer) {
  await carriedRun(caller, appId, scanKey, deviceId);
  if (body.length > MAX_RUN_LOG_BYTES) throw badRequest(`the log must be at most ${MAX_RUN_LOG_BYTES} bytes`);
  await putObject(objectKeys.perchRunLog(appId, scanKey), body, 'text/plain; charset=utf-8');
}
