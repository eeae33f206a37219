import { accessibleApplication } from '../applications/access.ts';
import { canSeeTeamResource } from '../applications/model.ts';
import { getApplications } from '../applications/application-repository.ts';
import { environmentsOfApp } from '../applications/environment-repository.ts';
import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { getItem, queryItems } from '../db/query.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import type { Caller } from '../context/caller.ts';
import { logger } from '../context/logger.ts';
import { UUID } from '../input/uuid.ts';
import { queueRun, settled } from '../perch/commands.ts';
import { getRun } from '../perch/repository.ts';
import { type PerchRun, type StartedBy, isActive } from '../perch/model.ts';
import { recordVerification, verifyTarget } from '../perch/verification.ts';
import type { BulkProfileResultsBody, ProfileResultBody } from './inputs.ts';
import { PROFILE_DEADLINE_SECONDS, timeOrderedUuid, type DescriptionCheck } from './model.ts';

// Profile scans (docs/PROFILE-SCANS.md): launchProfileScan queues a run of the hosted-scan channel (a PerchRun of
// kind PROFILE) that an agent carries out with its prober; the agent uploads the result, which ends the run
// (result-upload.ts); the Profile Scans operations read the results, newest first.

/** POST /api/v1/app/{appId}/perch/profile-scan: queues a profile of the CLOUD application's verified target. */
export async function launchProfileScan(caller: Caller, appId: string, startedBy: StartedBy = {}) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  const target = app.cloudScanTarget?.targetURL;
  if (app.applicationType !== 'CLOUD' || !target)
    throw badRequest(
      `application ${appId} is not a CLOUD application: profile scans need applicationType CLOUD and a cloudScanTargetURL`,
    );
  const current = await settled(await getRun(appId, true));
  if (current && isActive(current))
    throw conflict(
      `a ${current.kind === 'PROFILE' ? 'profile scan' : 'scan'} is already running for application ${appId} (scanKey ${current.scanKey}): wait for it or stop it first`,
    );
  const verification = await verifyTarget(app.organizationId, target);
  await recordVerification(app, verification.verified);
  if (!verification.verified)
    throw badRequest(`the scan target ${verification.host} is not verified for hosted scans: ${verification.problem}`);
  // The suggested configuration names an environment of the application: its first, by name.
  const env = (await environmentsOfApp(appId)).map((e) => e.name).sort((a, b) => a.localeCompare(b))[0];
  const now = Date.now();
  const run: PerchRun = {
    applicationId: appId,
    organizationId: app.organizationId,
    scanKey: timeOrderedUuid(now),
    kind: 'PROFILE',
    state: 'QUEUED',
    phase: 'queued',
    envName: env ?? 'Development',
    config: '',
    targetUrl: target,
    allowPrivate: verification.allowPrivate,
    userId: caller.userId,
    errors: [],
    createdAt: now,
    updatedAt: now,
    deadlineAt: now + Math.min(PROFILE_DEADLINE_SECONDS, config.perchMaxScanSeconds) * 1000,
  };
  await queueRun(
    caller,
    app,
    current,
    run,
    { hosted: true, profile: true, ...startedBy.details },
    startedBy.items?.(run),
  );
  return { scanKey: run.scanKey };
}

/** A stored result: the agent's, less the description's text, plus what the service found checking it. */
export type StoredResult = Omit<ProfileResultBody, 'discoveredOpenapiSpec'> &
  DescriptionCheck & { scanId: string; timestamp: number };

export const parsed = (item: Record<string, unknown>) => JSON.parse(item.result as string) as StoredResult;

async function latestOf(appId: string, limit: number): Promise<StoredResult[]> {
  const { pk, skPrefix } = keys.profileResultsOfApp(appId);
  const items: StoredResult[] = [];
  for await (const item of queryItems({ partition: pk, skPrefix, forward: false, pageLimit: limit })) {
    items.push(parsed(item));
    if (items.length >= limit) break;
  }
  return items;
}

/** GET /api/v1/app/{appId}/profile/results: the newest result; 404 until there is one. */
export async function getLatestProfileScanResult(caller: Caller, appId: string) {
  await accessibleApplication(caller, appId, { teamRestricted: true });
  const [latest] = await latestOf(appId, 1);
  if (!latest) throw notFound(`application ${appId} has no profile scan result yet: launch one (launchProfileScan)`);
  return latest;
}

/** GET /api/v1/app/{appId}/profile/results/{scanId} */
export async function getProfileScanResult(caller: Caller, appId: string, scanId: string) {
  await accessibleApplication(caller, appId, { teamRestricted: true });
  const item = await getItem(keys.profileResult(appId, scanId));
  if (!item) throw notFound(`no profile scan result ${scanId} in application ${appId}`);
  return parsed(item);
}

/** GET /api/v1/app/{appId}/profile/results/list?limit=: newest first. */
export async function listProfileScanResults(caller: Caller, appId: string, limit: number) {
  await accessibleApplication(caller, appId, { teamRestricted: true });
  return { profileScanResults: await latestOf(appId, limit) };
}

type BulkEntry =
  | { status: 'SUCCESS'; result: StoredResult }
  | { status: 'NOT_FOUND'; errorMessage: string }
  | { status: 'ERROR'; errorMessage: string };

/**
 * POST /api/v1/org/{orgId}/profile/results: each named application's newest result. An application that is not
 * the organization's, or is in a team the caller is not in, answers NOT_FOUND like one without a result (no
 * existence oracle); an id that is not a UUID, or a read that failed, answers ERROR.
 */
export async function bulkGetLatestProfileScanResults(caller: Caller, orgId: string, body: BulkProfileResultsBody) {
  const membership = await caller.authorize(orgId);
  const ids = [...new Set(body.applicationIds.map((id) => id.trim()))];
  const valid = ids.filter((id) => UUID.test(id)).map((id) => id.toLowerCase());
  const visible = new Set(
    (await getApplications(valid))
      .filter((app) => app.organizationId === orgId && canSeeTeamResource(membership, app.teamId))
      .map((app) => app.applicationId),
  );
  const results: Record<string, BulkEntry> = {};
  await Promise.all(
    ids.map(async (id) => {
      if (!UUID.test(id)) {
        results[id] = { status: 'ERROR', errorMessage: `${JSON.stringify(id)} is not an application id` };
        return;
      }
      const appId = id.toLowerCase();
      if (!visible.has(appId)) {
        results[id] = { status: 'NOT_FOUND', errorMessage: `application ${id} not found` };
        return;
      }
      try {
        const [latest] = await latestOf(appId, 1);
        results[id] = latest
          ? { status: 'SUCCESS', result: latest }
          : { status: 'NOT_FOUND', errorMessage: `application ${id} has no profile scan result yet` };
      } catch (error) {
        logger.error('a profile result could not be read', { applicationId: appId, error });
        results[id] = { status: 'ERROR', errorMessage: 'the result could not be read; try again' };
      }
    }),
  );
  return { results };
}
