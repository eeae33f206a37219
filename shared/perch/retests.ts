import { randomUUID } from 'node:crypto';
import { accessibleApplication } from '../applications/access.ts';
import type { ApplicationRecord } from '../applications/model.ts';
import { getEnvironmentByName } from '../applications/environment-repository.ts';
import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { conditionFailed, fromItem } from '../db/items.ts';
import { failedCondition, retryOnConflict } from '../db/retry.ts';
import { getItem } from '../db/query.ts';
import { putNewItem, transactWrite, type TransactItem } from '../db/transactions.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import type { Caller } from '../context/caller.ts';
import { findingFixedByRetest, findingStillPresent } from '../findings/retest-outcome.ts';
import { getFinding } from '../results/finding-repository.ts';
import { findingHash, type FindingRecord } from '../results/model.ts';
import { getScan } from '../results/scan-repository.ts';
import { movedSecretWrites } from '../scans/secret-references.ts';
import { readObjectText } from '../storage/objects-io.ts';
import { objectKeys } from '../storage/objects.ts';
import { queueRun, runConfiguration, settled, toPerchDevice } from './commands.ts';
import { carriedRunEnd, getRun } from './repository.ts';
import { isActive, type PerchRun, type RetestRecord, type RetestStatus } from './model.ts';
import { recordVerification, verifyTarget } from './verification.ts';
import { wakeAgents } from './signals.ts';
import type { RunEndBody } from './inputs.ts';

// Retests (docs/HOSTED-SCANS.md, Retests): a hosted run limited to one finding (its method, URL and parameter, and
// the engine check that found it), queued and carried out as hosted scans are (the same queue, slots and agents).
// Its outcome lands with the run's end in one transaction: FIXED marks the finding fixed and verified,
// STILL_PRESENT keeps it open with the new evidence.

/** The configuration the finding was found with (its last scan's, as stored), if there is one. */
async function findingConfig(appId: string, finding: FindingRecord, environmentId: string) {
  const scan = await getScan({ applicationId: appId, environmentId, scanId: finding.lastScanId });
  return scan?.configHash ? readObjectText(objectKeys.scanConfig(appId, scan.configHash)) : undefined;
}

const AUTHORIZATION_PLUGIN = /^hawk\.authz\./;

/**
 * The finding's absolute URL on the scan's target; 400 when it is on another origin (the agent reaches no other). A
 * GET finding's parameter goes in its query when the URI lacks it (wapiti reports a finding's path alone), so the
 * engine has the parameter to attack. An authorization finding's parameter names where its identifier is (`path:{id}`):
 * its request is replayed as it was (docs/HOSTED-SCANS.md, Retests).
 */
function findingUrl(finding: FindingRecord, host: string): string {
  const url = new URL(finding.uri, host);
  if (url.origin !== new URL(host).origin)
    throw badRequest(
      `the finding's URL ${finding.uri.slice(0, 500)} is not on the scan target ${new URL(host).origin}`,
    );
  if (
    finding.requestMethod.toUpperCase() === 'GET' &&
    finding.param &&
    !AUTHORIZATION_PLUGIN.test(finding.pluginId) &&
    !url.searchParams.has(finding.param)
  )
    url.searchParams.set(finding.param, '1');
  return url.href;
}

/** POST /api/v1/app/{appId}/findings/{findingHash}/retest?env=...: queues the retest and answers its id. */
export async function retestFinding(caller: Caller, appId: string, hash: string, envName: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  const env = await getEnvironmentByName(appId, envName);
  const finding = env && (await getFinding({ applicationId: appId, environmentId: env.environmentId }, hash));
  if (!env || !finding) throw notFound(`no finding ${hash} in environment ${envName} of application ${appId}`);
  if (app.applicationType !== 'CLOUD' || !app.cloudScanTarget?.targetURL)
    throw badRequest(`application ${appId} is not a CLOUD application: a retest is a hosted scan of its target`);
  const current = await settled(await getRun(appId, true));
  if (current && isActive(current))
    throw conflict(`a scan is already running for application ${appId} (scanKey ${current.scanKey}): retest after it`);
  const found = await findingConfig(appId, finding, env.environmentId);
  const { text, host, moved, held } = await runConfiguration(app, { command: { config: found }, env: env.name });
  const url = findingUrl(finding, host);
  const verification = await verifyTarget(app.organizationId, host);
  if (new URL(host).host === new URL(app.cloudScanTarget.targetURL).host)
    await recordVerification(app, verification.verified);
  if (!verification.verified)
    throw badRequest(`the scan target ${verification.host} is not verified for hosted scans: ${verification.problem}`);
  const now = Date.now();
  const retestId = randomUUID();
  const run: PerchRun = {
    applicationId: appId,
    organizationId: app.organizationId,
    scanKey: retestId,
    kind: 'RETEST',
    retest: {
      environmentId: env.environmentId,
      findingHash: hash,
      pluginId: finding.pluginId,
      method: finding.requestMethod,
      url,
      param: finding.param,
    },
    state: 'QUEUED',
    phase: 'queued',
    envName: env.name,
    config: text,
    targetUrl: host,
    allowPrivate: verification.allowPrivate,
    userId: caller.userId,
    errors: [],
    createdAt: now,
    updatedAt: now,
    deadlineAt: now + config.perchMaxScanSeconds * 1000,
  };
  await queueRun(caller, app, current, run, { retestId, findingHash: hash }, [
    ...(await movedSecretWrites({ appId, orgId: app.organizationId }, moved, caller.userId, held)),
    putNewItem(retestItem(app, run)),
  ]);
  return { retestId };
}

function retestItem(app: ApplicationRecord, run: PerchRun) {
  const record: RetestRecord = {
    retestId: run.scanKey,
    applicationId: app.applicationId,
    organizationId: app.organizationId,
    environmentId: run.retest!.environmentId,
    findingHash: run.retest!.findingHash,
    status: 'QUEUED',
    userId: run.userId,
    createdAt: run.createdAt,
    evidence: '',
  };
  return { ...keys.retest(app.applicationId, run.scanKey), entity: 'retest', ...record };
}

/** The retest's RUNNING, written in the transaction of its run's acknowledgement (acknowledgeDeviceCommand). */
export const retestStarted = (run: PerchRun, at: number): TransactItem => ({
  Update: {
    TableName: config.tableName,
    Key: keys.retest(run.applicationId, run.scanKey),
    UpdateExpression: 'SET #status = :running, startedAt = :at',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':running': 'RUNNING', ':at': at },
  },
});

const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());

/** GET /api/v1/app/{appId}/retests/{retestId} */
export async function getRetest(caller: Caller, appId: string, retestId: string) {
  await accessibleApplication(caller, appId, { teamRestricted: true });
  // The run first: a run that ended with its outcome wrote the retest in the same transaction, read after it.
  const run = await settled(await getRun(appId, true));
  const record = fromItem<RetestRecord>(await getItem(keys.retest(appId, retestId)));
  if (!record) throw notFound(`no retest ${retestId} in application ${appId}`);
  const shown = unfinished(record) ? runOutcome(record, run) : record;
  return {
    status: shown.status,
    findingHash: shown.findingHash,
    startedAt: iso(shown.startedAt),
    endedAt: iso(shown.endedAt),
    evidence: shown.evidence,
  };
}

const unfinished = (record: RetestRecord) => record.status === 'QUEUED' || record.status === 'RUNNING';

/** An unfinished retest whose run ended without its outcome (stopped, its agent lost, its deadline) reads ERROR. */
function runOutcome(record: RetestRecord, run: PerchRun | undefined): RetestRecord {
  if (run?.scanKey === record.retestId && isActive(run)) return record;
  const mine = run?.scanKey === record.retestId ? run : undefined;
  const why = mine?.errors.at(-1)?.message ?? (mine?.state === 'STOPPED' ? 'the retest was stopped' : undefined);
  return {
    ...record,
    status: 'ERROR',
    endedAt: mine?.endedAt ?? record.endedAt,
    evidence: why ?? 'the retest ended without an outcome: retest the finding again',
  };
}

/** What the retest's engine found, told apart from its finding by the finding's identity (results/model.ts, findingHash). */
function outcomeOf(run: PerchRun, body: RunEndBody): { status: RetestStatus; evidence: string } {
  if (body.state === 'ERROR') return { status: 'ERROR', evidence: body.error!.message };
  const target = run.retest!;
  const sameCheck = (pluginId: string) => !target.pluginId.startsWith('wapiti.') || pluginId === target.pluginId;
  const again = body.retest!.found.find(
    (f) =>
      sameCheck(f.pluginId) &&
      findingHash({
        ...f,
        applicationId: run.applicationId,
        environmentId: target.environmentId,
        pluginId: target.pluginId,
      }) === target.findingHash,
  );
  if (again)
    return { status: 'STILL_PRESENT', evidence: again.evidence || `${again.method} ${again.uri} (${again.param})` };
  const where = `${target.method} ${target.url}${target.param ? `, parameter ${target.param}` : ''}`;
  return { status: 'FIXED', evidence: `the engine's check found nothing at ${where}` };
}

/**
 * The end of a retest's run (endScanRun): the run ended (its device and slot freed), the retest's outcome and the
 * finding's in one transaction. A finding deleted meanwhile (its environment) ends the retest in ERROR.
 */
export async function endRetest(run: PerchRun, deviceId: string, body: RunEndBody) {
  if (!isActive(run)) return { device: toPerchDevice(run) };
  if (body.state === 'COMPLETED' && !body.retest) throw badRequest('retest: required when a retest run completes');
  const now = Date.now();
  const after: PerchRun = {
    ...run,
    state: body.state,
    phase: body.state.toLowerCase(),
    errors: body.error ? [...run.errors, body.error] : run.errors,
    updatedAt: now,
    endedAt: now,
  };
  const ref = { organizationId: run.organizationId, applicationId: run.applicationId, ...run.retest! };
  const ending = async (outcome: { status: RetestStatus; evidence: string }, withFinding: boolean) => {
    const finding =
      !withFinding || outcome.status === 'ERROR'
        ? []
        : outcome.status === 'FIXED'
          ? await findingFixedByRetest(ref, run.scanKey, now, outcome.evidence)
          : findingStillPresent(ref, run.scanKey, now, outcome.evidence);
    return [...carriedRunEnd(run, after, deviceId), retestEnded(run, outcome, now), ...finding];
  };
  const outcome = outcomeOf(run, body);
  // A fix is written from reads of the finding, its streams and trends: another write of them meanwhile (a scan's
  // completion, a triage) makes it read again; the finding deleted ends the retest in ERROR.
  const retry = {
    conflict: failedCondition(),
    exhausted: () => conflict(`retest ${run.scanKey} changed meanwhile (stopped?): read its status again`),
  };
  await retryOnConflict(retry, async () => {
    await transactWrite(await ending(outcome, true)).catch(async (error: unknown) => {
      if (!conditionFailed(error, 'findingGone') || (await getFinding(ref, ref.findingHash))) throw error;
      await transactWrite(
        await ending({ status: 'ERROR', evidence: 'the finding was deleted during its retest' }, false),
      );
    });
  });
  await wakeAgents(run.organizationId); // a slot is free: the next queued run can start
  return { device: toPerchDevice(after) };
}

const retestEnded = (run: PerchRun, outcome: { status: RetestStatus; evidence: string }, at: number): TransactItem => ({
  Update: {
    TableName: config.tableName,
    Key: keys.retest(run.applicationId, run.scanKey),
    UpdateExpression: 'SET #status = :status, endedAt = :at, evidence = :evidence',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':status': outcome.status, ':at': at, ':evidence': outcome.evidence.slice(0, 4000) },
  },
});
