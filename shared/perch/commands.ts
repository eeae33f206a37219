import { randomUUID } from 'node:crypto';
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { accessibleApplication } from '../applications/access.ts';
import { canSeeTeamResource, type ApplicationRecord } from '../applications/model.ts';
import { getApplications } from '../applications/application-repository.ts';
import { environmentsOfApp } from '../applications/environment-repository.ts';
import { auditEntry } from '../audit/entries.ts';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { conditionFailed, failedConditions, fromItem } from '../db/items.ts';
import { putNewItem, transactWrite, type TransactItem } from '../db/transactions.ts';
import { config } from '../config.ts';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { createCaller } from '../identity/caller.ts';
import { holdsPermission, type Caller } from '../context/caller.ts';
import { logger } from '../context/logger.ts';
import { organizationAssetText } from '../hosted-assets/organization-assets.ts';
import { parseScanConfig } from '../scans/configs.ts';
import {
  movedSecretWrites,
  secretRaceConflict,
  secretsHeldFor,
  textWithSecretReferences,
} from '../scans/secret-references.ts';
import { hostedScanPolicy } from '../scans/config-reads.ts';
import { referencedNames, storedSecretOwners } from '../scans/secret-store.ts';
import { reportScanCompleted } from '../scans/reporting.ts';
import { readObjectText } from '../storage/objects-io.ts';
import { objectKeys } from '../storage/objects.ts';
import { UUID } from '../input/uuid.ts';
import {
  deviceRelease,
  devicesOf,
  getDevice,
  getRun,
  isOnline,
  queueEntry,
  queueVersionBump,
  runChange,
  slotsOf,
} from './repository.ts';
import { type PerchRun, type RunError, isActive, type StartedBy } from './model.ts';
import { recordVerification, verifyTarget } from './verification.ts';
import { launchRunner } from './runner.ts';
import { wakeAgents } from './signals.ts';
import { carriesLabels, runLabels } from './pools.ts';
import type { PerchCommandBody, SearchDevicesBody } from './inputs.ts';

// The Perch operations (docs/HOSTED-SCANS.md): start, stop and watch an application's hosted scan. A run is queued
// for the organization's agents; the one that acknowledges it carries it out and reports the scan through the
// ordinary reporting operations.

/** What getScanStatus shows for a run's state: RUNNING for the whole active run. */
const DEVICE_STATUS = {
  QUEUED: 'RUNNING',
  RUNNING: 'RUNNING',
  COMPLETED: 'HOSTED_SCANNER_DISCONNECTED',
  STOPPED: 'HOSTED_SCANNER_DISCONNECTED',
  ERROR: 'HOSTED_SCANNER_ERRORED',
} as const satisfies Record<PerchRun['state'], string>;
type DeviceStatus = (typeof DEVICE_STATUS)[PerchRun['state']] | 'OFFLINE';

/** perch.PerchDevice of a run. */
export function toPerchDevice(run: PerchRun, status: DeviceStatus = DEVICE_STATUS[run.state]) {
  return {
    applicationId: run.applicationId,
    orgId: run.organizationId,
    id: run.deviceId ?? '',
    name: run.deviceName ?? '',
    scanId: run.scanId ?? '',
    status,
    userId: run.userId,
    createdDate: run.createdAt,
    updatedDate: run.updatedAt,
    command: { id: run.scanKey, command: 'SCAN_START' as const, errors: run.errors },
  };
}

const targetOnlyConfig = (app: ApplicationRecord, env: string, host: string) =>
  `app:\n  applicationId: ${app.applicationId}\n  env: ${JSON.stringify(env)}\n  host: ${JSON.stringify(host)}\n`;

/**
 * The configuration a start names, with the words the run's log and its scan name it by: the command's YAML,
 * hawkop's organization configuration, or (ours) the environment's default configuration; none: undefined.
 */
async function namedConfiguration(app: ApplicationRecord, body: PerchCommandBody) {
  if (body.defaultConfig) {
    if (body.command.config !== undefined || body.scanConfig !== undefined)
      throw badRequest('defaultConfig: give one configuration: command.config, scanConfig or defaultConfig');
    if (!body.env) throw badRequest("env: defaultConfig scans with an environment's default configuration: name it");
    const env = (await environmentsOfApp(app.applicationId)).find(
      (candidate) => candidate.name.toLowerCase() === body.env!.toLowerCase(),
    );
    if (!env) throw badRequest(`env: application ${app.applicationId} has no environment named ${body.env}`);
    const text = await readObjectText(
      env.defaultConfigKey ?? objectKeys.environmentConfig(app.applicationId, env.environmentId),
    );
    if (text === undefined) throw badRequest(`env: environment ${env.name} has no default configuration`);
    return { text, configuration: `the default configuration of environment ${env.name}` };
  }
  if (body.command.config !== undefined)
    return { text: body.command.config, configuration: 'the one sent with the start' };
  if (body.scanConfig === undefined) return undefined;
  const text = await organizationAssetText('configuration', app.organizationId, body.scanConfig);
  if (text === undefined)
    throw badRequest(`scanConfig: no scan configuration named ${body.scanConfig} in the organization`);
  return { text, configuration: `the organization scan configuration ${body.scanConfig}` };
}

/** The configuration a start scans with (a default one, of the target, when it names none). */
export async function runConfiguration(app: ApplicationRecord, body: PerchCommandBody) {
  const named = await namedConfiguration(app, body);
  const target = app.cloudScanTarget!.targetURL;
  if (!named) {
    const env = body.env ?? 'Development';
    const configuration = 'none: the target URL only';
    return { text: targetOnlyConfig(app, env, target), env, host: target, moved: [], held: new Map(), configuration };
  }
  const parsed = parseScanConfig(named.text);
  // Its literal credentials move into the application's scan secrets (docs/HOSTED-SCANS.md, "Scan secrets").
  const held = await secretsHeldFor({ appId: app.applicationId, orgId: app.organizationId }, parsed);
  const referencing = textWithSecretReferences(named.text, parsed, held);
  const section = (parsed.app ?? {}) as { env?: unknown; host?: unknown };
  const env = body.env ?? (typeof section.env === 'string' && section.env.trim() ? section.env.trim() : 'Development');
  const host = typeof section.host === 'string' && section.host ? section.host : target;
  if (!URL.canParse(host) || !/^https?:$/.test(new URL(host).protocol))
    throw badRequest(`config: app.host must be an http(s) URL, got ${JSON.stringify(host).slice(0, 200)}`);
  const { moved } = referencing;
  return { text: referencing.text, env, host, moved, held, configuration: named.configuration };
}

/** The scan's starter, acting for the service when a run ends without its agent (stopped, or its agent went silent). */
const starterOf = (run: PerchRun) => createCaller({ userId: run.userId, apiKeyId: '' }, 'write:scan');

/**
 * Ends an active run as `after` (its device freed, with `audit` when given, in one transaction), then ends its
 * reported scan in ERROR: a run that did not finish is never shown as a clean scan.
 */
async function endRun(run: PerchRun, after: PerchRun, audit?: TransactItem): Promise<void> {
  // The run's slot, if it holds one, is given back by its projection.
  const items = [...runChange(run, after), ...(audit ? [audit] : [])];
  if (run.state === 'QUEUED')
    items.push({
      Delete: { TableName: config.tableName, Key: keys.perchQueued(run.organizationId, run.createdAt, run.scanKey) },
    });
  if (run.deviceId) {
    const device = await getDevice(run.organizationId, run.deviceId);
    if (device?.scanKey === run.scanKey) items.push(deviceRelease(run.organizationId, run.deviceId, run.scanKey));
  }
  try {
    await transactWrite(items);
  } catch (error) {
    if (failedConditions(error).length)
      throw conflict(`the scan ${run.scanKey} changed meanwhile; read its status again`);
    throw error;
  }
  if (run.scanId) {
    await reportScanCompleted(starterOf(run), run.scanId, { status: 'ERROR', urlCount: 0 }, { audit: false }).catch(
      (error) => logger.warn('the stopped run left its scan unfinished', { scanId: run.scanId, error }),
    );
  }
  await wakeAgents(run.organizationId);
}

/**
 * An active run whose agent stopped sending heartbeats ends in ERROR (DEVICE) when it is next read: OFFLINE is
 * computed from the last heartbeat, so no sweeper is needed.
 */
export async function settled(run: PerchRun | undefined): Promise<PerchRun | undefined> {
  if (run?.state === 'QUEUED' && Date.now() > run.deadlineAt) {
    // No agent took it before its deadline: on AWS its runner never started, or the organization's running scans
    // kept it waiting (docs/HOSTED-SCANS.md).
    const { running, limit } = await slotsOf(run.organizationId);
    const why =
      running >= limit
        ? `the organization ran ${running} hosted scans, its limit, until the scan's deadline (${new Date(run.deadlineAt).toISOString()}): start it again when fewer run, or ask the operator for a higher limit`
        : `no scanner agent${run.requiredLabels?.length ? ` with the labels ${run.requiredLabels.join(', ')}` : ''} took the scan before its deadline (${new Date(run.deadlineAt).toISOString()}): check that an agent is running (listDevices) and start the scan again`;
    try {
      return await failRun(run, 'not started', { errorType: 'PROVISIONING', message: why });
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 409) throw error;
      return getRun(run.applicationId, true);
    }
  }
  if (!run || run.state !== 'RUNNING' || !run.deviceId) return run;
  const device = await getDevice(run.organizationId, run.deviceId);
  if (device && isOnline(device) && device.scanKey === run.scanKey) return run;
  const heard = device ? new Date(device.lastHeartbeatAt).toISOString() : 'never';
  try {
    return await abandonRun(
      run,
      `the agent ${run.deviceName ?? run.deviceId} stopped sending heartbeats (last at ${heard}); check the agent and start the scan again`,
    );
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode !== 409) throw error;
    return getRun(run.applicationId, true);
  }
}

/** Ends an active run in ERROR with the reason and what to do. */
export async function failRun(run: PerchRun, phase: string, error: RunError): Promise<PerchRun> {
  const now = Date.now();
  const after: PerchRun = {
    ...run,
    state: 'ERROR',
    phase,
    errors: [...run.errors, error],
    updatedAt: now,
    endedAt: now,
  };
  await endRun(run, after);
  return after;
}

/** Ends an active run whose agent is gone in ERROR (DEVICE), with what to do. */
export const abandonRun = (run: PerchRun, message: string) =>
  failRun(run, 'agent lost', { errorType: 'DEVICE', message });

const SECRET_WRITERS = { application: 'write:application', organization: 'write:scan_config' } as const;

/**
 * The stored secrets a configuration sent with the start may receive: the caller chose where its requests go, so
 * only secrets the caller may change (SECRET_WRITERS) or has just moved into the store with it. A reference to
 * another stored secret is refused (403), not left to the agent's environment; stored configurations (a default or
 * organization one) were written by members who may change them (docs/HOSTED-SCANS.md, "Scan secrets").
 */
async function sendableSecrets(caller: Caller, app: ApplicationRecord, text: string, moved: { name: string }[]) {
  const membership = await caller.authorize(app.organizationId);
  const owners = await storedSecretOwners(app.applicationId, app.organizationId, referencedNames(text));
  const movedNames = new Set(moved.map(({ name }) => name));
  for (const [name, owner] of owners)
    if (!movedNames.has(name) && !holdsPermission(caller, membership, SECRET_WRITERS[owner]))
      throw forbidden(
        `command.config: \${${name}} is the ${owner}'s scan secret, and a configuration sent with the start receives ` +
          `only secrets its sender may change (${SECRET_WRITERS[owner]}): start with the environment's default ` +
          'configuration (defaultConfig) or an organization scan configuration (scanConfig) instead',
      );
  // The moved secrets are written with the run, so the store does not hold them yet.
  return [...new Set([...owners.keys(), ...movedNames])];
}

/** POST /api/v1/app/{appId}/perch/start */
export async function startScan(caller: Caller, appId: string, body: PerchCommandBody, startedBy: StartedBy = {}) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  if (app.applicationType !== 'CLOUD' || !app.cloudScanTarget?.targetURL)
    throw badRequest(
      `application ${appId} is not a CLOUD application: hosted scans need applicationType CLOUD and a cloudScanTargetURL`,
    );
  const current = await settled(await getRun(appId, true));
  if (current && isActive(current))
    throw conflict(`a scan is already running for application ${appId} (scanKey ${current.scanKey}): stop it first`);
  const { text, env, host, moved, held, configuration } = await runConfiguration(app, body);
  const secretNames = body.command.config === undefined ? undefined : await sendableSecrets(caller, app, text, moved);
  const verification = await verifyTarget(app.organizationId, host);
  if (host === app.cloudScanTarget.targetURL || new URL(host).host === new URL(app.cloudScanTarget.targetURL).host)
    await recordVerification(app, verification.verified);
  if (!verification.verified)
    throw badRequest(`the scan target ${verification.host} is not verified for hosted scans: ${verification.problem}`);
  const now = Date.now();
  const run: PerchRun = {
    applicationId: appId,
    organizationId: app.organizationId,
    scanKey: randomUUID(),
    state: 'QUEUED',
    phase: 'queued',
    envName: env,
    config: text,
    configuration,
    targetUrl: host,
    allowPrivate: verification.allowPrivate,
    // The application's policy when the scan starts decides which engine checks run.
    scanPolicy: await hostedScanPolicy(appId, app.organizationId),
    userId: caller.userId,
    errors: [],
    createdAt: now,
    updatedAt: now,
    deadlineAt: now + config.perchMaxScanSeconds * 1000,
    ...(secretNames && { secretNames }),
  };
  const movedSecrets = moved.map((secret) => secret.name);
  const secretWrites = await movedSecretWrites({ appId, orgId: app.organizationId }, moved, caller.userId, held);
  const details = { hosted: true, configuration, ...startedBy.details, ...(moved.length ? { movedSecrets } : {}) };
  await queueRun(caller, app, current, run, details, [...secretWrites, ...(startedBy.items?.(run) ?? [])]);
  return { scanKey: run.scanKey, movedSecrets };
}

/**
 * Queues `run` for the organization's agents in place of `current` (with its SCAN_STARTED entry and `items`, in one
 * transaction), wakes them, and on AWS launches a runner for it. A scan (startScan) and a profile
 * (launchProfileScan) start the same way.
 */
export async function queueRun(
  caller: Caller,
  app: ApplicationRecord,
  current: PerchRun | undefined,
  run: PerchRun,
  details: Record<string, unknown>,
  /** Written with the run: the scan secrets its configuration's literal credentials moved to, a schedule's run. */
  items: TransactItem[] = [],
): Promise<void> {
  const appId = app.applicationId;
  // Its application's required labels as they are now decide which agents may take it (docs/HOSTED-SCANS.md, Agent
  // pools); a label that became another team's pool refuses the start.
  const requiredLabels = await runLabels(app);
  if (requiredLabels) run.requiredLabels = requiredLabels;
  try {
    // The queue's version moves with it (queueVersion): agents of the organization may now take a run. Another
    // start's transaction may hold that item at the same moment: retried.
    await transactWrite([
      ...items,
      ...runChange(current, run),
      putNewItem(queueEntry(run)),
      queueVersionBump(app.organizationId),
      auditEntry(caller, app.organizationId, 'SCAN_STARTED', {
        applicationId: appId,
        appName: app.name,
        envName: run.envName,
        scanKey: run.scanKey,
        ...details,
      }),
    ]);
  } catch (error) {
    if (conditionFailed(error, 'runChanged')) throw conflict(`a scan was started for application ${appId} meanwhile`);
    secretRaceConflict(error);
    throw error;
  }
  // The agents' wake (never rejects) goes out beside the runner's launch, not before it.
  const woken = wakeAgents(app.organizationId);
  // On AWS, a runner of its own (ECS Fargate); a runner that cannot be started ends the run in ERROR (PROVISIONING).
  const notLaunched = await launchRunner(caller, run).catch((error: unknown) => {
    logger.error('the hosted runner could not be launched', { scanKey: run.scanKey, error });
    return 'the hosted runner could not be started (the service failed to launch it): start the scan again later';
  });
  await woken;
  if (notLaunched)
    await failRun(run, 'not started', { errorType: 'PROVISIONING', message: notLaunched }).catch((error) => {
      // 409: an agent took the run meanwhile, and carries it out.
      if ((error as { statusCode?: number }).statusCode !== 409) throw error;
    });
}

/** POST /api/v1/app/{appId}/perch/stop: stops the run, queued or running; its scan ends in ERROR. */
export async function stopScan(caller: Caller, appId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  const run = await settled(await getRun(appId, true));
  if (!run || !isActive(run)) throw notFound(`no active scan for application ${appId}`);
  const now = Date.now();
  const after: PerchRun = {
    ...run,
    state: 'STOPPED',
    phase: 'stopped',
    stopCommandId: randomUUID(),
    updatedAt: now,
    endedAt: now,
  };
  await endRun(
    run,
    after,
    auditEntry(caller, app.organizationId, 'SCAN_ERRORED', {
      applicationId: appId,
      appName: app.name,
      envName: run.envName,
      scanKey: run.scanKey,
      scanId: run.scanId,
      stopped: true,
    }),
  );
  return { id: run.scanKey, name: run.deviceName ?? '', status: 'HOSTED_SCANNER_DISCONNECTED' as const };
}

/** GET /api/v1/app/{appId}/perch/status: the current or last run; `{}` when the application never had one. */
export async function getScanStatus(caller: Caller, appId: string) {
  await accessibleApplication(caller, appId, { teamRestricted: true });
  const run = await settled(await getRun(appId, true));
  return run ? { device: toPerchDevice(run) } : {};
}

const MAX_QUERIED_APPS = 100;

/** The application ids of a searchDevices request's `queryAppIds` filters (value: comma-delimited; multi: a list). */
function queriedAppIds(body: SearchDevicesBody): string[] {
  const ids = body.page.filters
    .filter((f) => f.name === 'queryAppIds')
    .flatMap((f) => [...(f.value ?? '').split(','), ...(f.multi?.values ?? [])])
    .map((id) => id.trim())
    .filter(Boolean);
  const bad = ids.find((id) => !UUID.test(id));
  if (bad) throw badRequest(`page.filters queryAppIds: ${JSON.stringify(bad.slice(0, 64))} is not an application id`);
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (unique.length > MAX_QUERIED_APPS) throw badRequest(`page.filters queryAppIds: at most ${MAX_QUERIED_APPS} ids`);
  return unique;
}

/** POST /api/v1/org/{orgId}/perch/status: the runs of the queried applications, all of which must be the organization's. */
export async function searchDevices(caller: Caller, orgId: string, body: SearchDevicesBody) {
  const ids = queriedAppIds(body);
  if (!ids.length) return { perchDevices: [], totalCount: 0 };
  const membership = await caller.authorize(orgId);
  const apps = await getApplications(ids);
  const visible = new Set(
    apps
      .filter((app) => app.organizationId === orgId && canSeeTeamResource(membership, app.teamId))
      .map((app) => app.applicationId),
  );
  const foreign = ids.find((id) => !visible.has(id));
  if (foreign) throw forbidden(`application ${foreign} does not belong to organization ${orgId}`);
  const out = await db.send(
    new BatchGetCommand({
      RequestItems: { [config.tableName]: { Keys: ids.map((id) => keys.perchRun(id)) } },
    }),
  );
  const runs = (out.Responses?.[config.tableName] ?? []).map((item) => fromItem<PerchRun>(item)!);
  // Read only: an active run whose agent went silent shows OFFLINE here; getScanStatus ends it.
  const devices = await Promise.all(
    runs.map(async (run) => {
      if (run.state !== 'RUNNING' || !run.deviceId) return toPerchDevice(run);
      const device = await getDevice(orgId, run.deviceId);
      return toPerchDevice(run, device && isOnline(device) ? undefined : 'OFFLINE');
    }),
  );
  devices.sort((a, b) => ids.indexOf(a.applicationId) - ids.indexOf(b.applicationId));
  return { perchDevices: devices, totalCount: devices.length };
}

/** POST /api/v1/app/{appId}/perch/verify: checks the CLOUD target now and says how to verify it. */
export async function verifyScanTarget(caller: Caller, appId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  if (app.applicationType !== 'CLOUD' || !app.cloudScanTarget?.targetURL)
    throw badRequest(`application ${appId} is not a CLOUD application: it has no scan target to verify`);
  const verification = await verifyTarget(app.organizationId, app.cloudScanTarget.targetURL);
  await recordVerification(app, verification.verified);
  const { allowPrivate: _allowPrivate, ...answer } = verification;
  return answer;
}

/**
 * A queued run's phase: whether it waits for one of the organization's running scans to end, or for an agent
 * carrying the labels it requires (none online has them: docs/HOSTED-SCANS.md, Agent pools).
 */
async function queuedPhase(run: PerchRun): Promise<string> {
  const { running, limit } = await slotsOf(run.organizationId);
  if (running >= limit) return `queued: ${running} of ${limit} scans running`;
  return (await labelsUnmatched(run)) ?? run.phase;
}

/** What a run requiring labels waits for while no online agent of its organization carries them all. */
async function labelsUnmatched(run: PerchRun): Promise<string | undefined> {
  if (!run.requiredLabels?.length) return undefined;
  const now = Date.now();
  const online = (await devicesOf(run.organizationId)).filter((device) => isOnline(device, now));
  if (online.some((device) => carriesLabels(device.labels, run.requiredLabels))) return undefined;
  return `queued: waiting for an agent with the labels ${run.requiredLabels.join(', ')} (no online agent has them)`;
}

/** GET /api/v1/app/{appId}/perch/log: a run's state, phase and log (the current or last run unless `scanKey`). */
export async function readRunLog(caller: Caller, appId: string, scanKey: string | undefined) {
  await accessibleApplication(caller, appId, { teamRestricted: true });
  const run = await settled(await getRun(appId, true));
  if (!run || (scanKey && scanKey !== run.scanKey)) {
    if (!scanKey) throw notFound(`application ${appId} has no hosted scan`);
    const log = await readObjectText(objectKeys.perchRunLog(appId, scanKey));
    if (log === undefined) throw notFound(`no log of scan ${scanKey} in application ${appId}`);
    return { scanKey, log };
  }
  const log = (await readObjectText(objectKeys.perchRunLog(appId, run.scanKey))) ?? '';
  return {
    scanKey: run.scanKey,
    state: run.state,
    phase: run.state === 'QUEUED' ? await queuedPhase(run) : run.phase,
    scanId: run.scanId ?? '',
    env: run.envName,
    configuration: run.configuration ?? '',
    deviceName: run.deviceName ?? '',
    updatedAt: run.updatedAt,
    errors: run.errors,
    log,
  };
}
