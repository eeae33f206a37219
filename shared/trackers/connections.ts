import { randomUUID } from 'node:crypto';
import { auditEntry } from '../audit/entries.ts';
import { transactWrite } from '../db/transactions.ts';
import { failedCondition, retryOnConflict } from '../db/retry.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { seal } from '../secrets/sealing.ts';
import { ReceiverRefused, receiverUrlProblem, resolveReceiver } from '../outbound/receivers.ts';
import { getIntegrationSettings } from '../outbound/settings.ts';
import { deleteTrackerItem, getTracker, putTracker, trackersOfOrg } from './repository.ts';
import { type TrackerRecord, trackerSealContext } from './model.ts';
import { GITHUB_API_URL, MAX_TRACKERS_PER_ORG, type CreateTrackerBody, type UpdateTrackerBody } from './inputs.ts';
import type { Caller } from '../context/caller.ts';

// Tracker connections of an organization (docs/TRACKERS.md): created, listed, changed and removed through
// createTracker, listTrackers, getTracker, updateTracker and deleteTracker, each change atomic with its
// INTEGRATION_* audit entry. The token is stored sealed and never shown again.

/** The API's view of a connection: never its token. */
export function toTracker(tracker: TrackerRecord) {
  return {
    id: tracker.trackerId,
    organizationId: tracker.organizationId,
    kind: tracker.kind,
    name: tracker.name,
    baseUrl: tracker.baseUrl,
    project: tracker.project ?? '',
    issueType: tracker.issueType ?? '',
    repository: tracker.repository ?? '',
    email: tracker.email ?? '',
    ...(tracker.autoPromote ? { autoPromote: tracker.autoPromote } : {}),
    closeAfterScans: tracker.closeAfterScans,
    enabled: tracker.enabled,
    createdAt: new Date(tracker.createdAt).toISOString(),
    updatedAt: new Date(tracker.updatedAt).toISOString(),
  };
}

const auditPayload = (tracker: TrackerRecord, extra: Record<string, unknown> = {}) => ({
  integration: tracker.kind,
  trackerId: tracker.trackerId,
  name: tracker.name,
  baseUrl: tracker.baseUrl,
  ...(tracker.project ? { project: tracker.project } : {}),
  ...(tracker.repository ? { repository: tracker.repository } : {}),
  enabled: tracker.enabled,
  ...extra,
});

/** 400 unless the URL is well formed and, resolved now, reaches an address the organization allows. */
async function checkBaseUrl(orgId: string, url: string): Promise<string> {
  const problem = receiverUrlProblem(url);
  if (problem) throw badRequest(`baseUrl: ${problem}`);
  const { allowPrivateNetworks } = await getIntegrationSettings(orgId);
  try {
    await resolveReceiver(url, allowPrivateNetworks);
  } catch (error) {
    if (error instanceof ReceiverRefused) throw badRequest(`baseUrl: ${error.message}`);
    throw error;
  }
  return url.replace(/\/+$/, '');
}

async function existingTracker(orgId: string, trackerId: string): Promise<TrackerRecord> {
  const tracker = await getTracker(orgId, trackerId);
  if (!tracker) throw notFound(`tracker ${trackerId} not found`);
  return tracker;
}

/** POST /api/v1/org/{orgId}/integrations/trackers (createTracker). */
export async function createTracker(caller: Caller, orgId: string, body: CreateTrackerBody) {
  if ((await trackersOfOrg(orgId)).length >= MAX_TRACKERS_PER_ORG)
    throw badRequest(`the organization has ${MAX_TRACKERS_PER_ORG} tracker connections, the most it may: remove one`);
  const baseUrl = await checkBaseUrl(orgId, body.baseUrl ?? GITHUB_API_URL);
  const now = Date.now();
  const ids = { organizationId: orgId, trackerId: randomUUID() };
  const jira = body.kind !== 'github';
  const tracker: TrackerRecord = {
    ...ids,
    kind: body.kind,
    name: body.name ?? '',
    baseUrl,
    ...(jira ? { project: body.project!, issueType: body.issueType ?? 'Bug' } : { repository: body.repository! }),
    ...(body.kind === 'jira' ? { email: body.email! } : {}),
    sealedToken: await seal(body.token, trackerSealContext(ids)),
    ...(body.autoPromote ? { autoPromote: body.autoPromote } : {}),
    closeAfterScans: body.closeAfterScans ?? 1,
    enabled: body.enabled ?? true,
    createdAt: now,
    updatedAt: now,
    revision: 1,
  };
  await transactWrite([
    putTracker(tracker),
    auditEntry(caller, orgId, 'INTEGRATION_ADDED', auditPayload(tracker), now),
  ]);
  return { tracker: toTracker(tracker) };
}

/** GET /api/v1/org/{orgId}/integrations/trackers (listTrackers): oldest first. */
export async function listTrackers(orgId: string) {
  const trackers = await trackersOfOrg(orgId);
  return { trackers: trackers.sort((a, b) => a.createdAt - b.createdAt).map(toTracker) };
}

/** GET /api/v1/org/{orgId}/integrations/trackers/{trackerId} (getTracker). */
export async function getTrackerView(orgId: string, trackerId: string) {
  return { tracker: toTracker(await existingTracker(orgId, trackerId)) };
}

/** PUT /api/v1/org/{orgId}/integrations/trackers/{trackerId} (updateTracker): the fields given change. */
export async function updateTracker(caller: Caller, orgId: string, trackerId: string, body: UpdateTrackerBody) {
  const baseUrl = body.baseUrl === undefined ? undefined : await checkBaseUrl(orgId, body.baseUrl);
  return retryOnConflict(trackerRetry(trackerId), async () => {
    const current = await existingTracker(orgId, trackerId);
    const jira = current.kind !== 'github';
    if (!jira && (body.project !== undefined || body.issueType !== undefined || body.email !== undefined))
      throw badRequest('project, issueType and email are for Jira connections');
    if (jira && body.repository !== undefined) throw badRequest('repository is for GitHub connections');
    if (current.kind === 'jiraServer' && body.email !== undefined)
      throw badRequest(
        'email is for Jira Cloud connections (Jira Server and Data Center take a personal access token)',
      );
    const now = Date.now();
    const { autoPromote: _auto, ...kept } = current;
    const autoPromote = body.autoPromote === undefined ? current.autoPromote : (body.autoPromote ?? undefined);
    const next: TrackerRecord = {
      ...kept,
      name: body.name ?? current.name,
      baseUrl: baseUrl ?? current.baseUrl,
      ...(jira
        ? { project: body.project ?? current.project, issueType: body.issueType ?? current.issueType }
        : { repository: body.repository ?? current.repository }),
      ...(current.kind === 'jira' ? { email: body.email ?? current.email } : {}),
      ...(autoPromote ? { autoPromote } : {}),
      closeAfterScans: body.closeAfterScans ?? current.closeAfterScans,
      enabled: body.enabled ?? current.enabled,
      updatedAt: now,
      revision: current.revision + 1,
    };
    if (body.token !== undefined) next.sealedToken = await seal(body.token, trackerSealContext(current));
    await transactWrite([
      putTracker(next),
      auditEntry(
        caller,
        orgId,
        'INTEGRATION_MODIFIED',
        auditPayload(next, body.token !== undefined ? { tokenReplaced: true } : {}),
        now,
      ),
    ]);
    return { tracker: toTracker(next) };
  });
}

/** A tracker write built from the connection read, built again when a concurrent change of it wins. */
const trackerRetry = (trackerId: string) => ({
  conflict: failedCondition(),
  exhausted: () => conflict(`tracker ${trackerId} is being changed concurrently; retry`),
});

/**
 * DELETE /api/v1/org/{orgId}/integrations/trackers/{trackerId} (deleteTracker): work still queued for it is dropped;
 * the tickets it made stay in the tracker and on their findings.
 */
export async function deleteTracker(caller: Caller, orgId: string, trackerId: string) {
  return retryOnConflict(trackerRetry(trackerId), async () => {
    const current = await existingTracker(orgId, trackerId);
    await transactWrite([
      deleteTrackerItem(current),
      auditEntry(caller, orgId, 'INTEGRATION_REMOVED', auditPayload(current)),
    ]);
    return {};
  });
}
