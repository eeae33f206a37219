import { accessibleApplication } from '../applications/access.ts';
import { badRequest, notFound, unauthorized } from '../errors.ts';
import { holdsPermission, type Caller } from '../context/caller.ts';
import { scanOfApplication } from '../results/scan-repository.ts';
import { recordScanStart } from '../scans/start.ts';
import type { ScanStartedBody } from '../scans/model.ts';
import { drivenDevice, getRun, runChange, RunMovedOn } from './repository.ts';
import { type PerchRun, isActive } from './model.ts';
import type { ApplicationRecord } from '../applications/model.ts';
import { toPerchDevice } from './commands.ts';
import type { RunScanStartedQuery } from './inputs.ts';

// reportScanRunStarted (docs/HOSTED-SCANS.md, The agent): the carrying agent announces its run's scan in one call,
// which writes the scan (as reportScanStarted does) and records it on the run in one transaction.

/** The tag of a hosted run's scan naming the configuration the run was started with. */
export const CONFIGURATION_TAG = 'HAWK_SCAN_CONFIGURATION';

/**
 * The application's current run `scanKey` if `deviceId`, a device the caller drives, carries it; anything else (an
 * unknown run, another device's, an earlier one, another member's device) answers the same 404, so a caller learns
 * nothing of runs that are not its own.
 */
async function ownRun(caller: Caller, app: ApplicationRecord, scanKey: string, deviceId: string): Promise<PerchRun> {
  const appId = app.applicationId;
  const [run, device] = await Promise.all([getRun(appId, true), drivenDevice(caller, app.organizationId, deviceId)]);
  if (!run || !device || run.scanKey !== scanKey || run.deviceId !== deviceId)
    throw notFound(`scan ${scanKey} is not a hosted scan this device carries in application ${appId}`);
  return run;
}

/**
 * POST /api/v1/app/{appId}/perch/runs/{scanKey}/scan: the scan is written as reportScanStarted writes it (its
 * environment, SCAN_STARTED, its events) and the run's scanId and phase in the same transaction. A run that ended
 * writes nothing and is answered as it is, so the agent stops; a run that already recorded its scan (an answer lost,
 * the call sent again) answers that scan.
 */
export async function reportScanRunStarted(
  caller: Caller,
  appId: string,
  scanKey: string,
  query: RunScanStartedQuery,
  readBody: () => Promise<ScanStartedBody>,
) {
  const { app, membership } = await accessibleApplication(caller, appId, { teamRestricted: true });
  // The route asks for write:device (the run's operations); the scan it reports asks for reportScanStarted's too.
  if (!holdsPermission(caller, membership, 'write:scan')) throw unauthorized();
  const run = await ownRun(caller, app, scanKey, query.deviceId);
  if (run.kind === 'PROFILE') throw badRequest(`run ${scanKey} is a profile scan, not a scan`);
  if (run.kind === 'RETEST') throw badRequest(`run ${scanKey} is a retest: it reports no scan`);
  if (!isActive(run)) return ended(run);
  if (run.scanId) return recordedScan(run, run.scanId);
  const reported = await readBody();
  // The scan names the configuration its run was started with (docs/HOSTED-SCANS.md, Runs): the scan page shows it.
  const body = run.configuration
    ? {
        ...reported,
        tags: [
          ...reported.tags.filter((tag) => tag.name !== CONFIGURATION_TAG),
          { name: CONFIGURATION_TAG, value: run.configuration },
        ],
      }
    : reported;
  let written: PerchRun | undefined;
  try {
    const started = await recordScanStart(caller, app, body, async (scan, attempt) => {
      // A later attempt reads the run again: it may have ended, or recorded another call's scan, meanwhile.
      const current = attempt === 1 ? run : await ownRun(caller, app, scanKey, query.deviceId);
      if (!isActive(current) || current.scanId) throw new RunMovedOn(current);
      written = { ...current, scanId: scan.scanId, phase: query.phase ?? current.phase, updatedAt: Date.now() };
      return runChange(current, written);
    });
    return { ...started, device: toPerchDevice(written!) };
  } catch (error) {
    if (!(error instanceof RunMovedOn)) throw error;
    const { run: now } = error;
    return isActive(now) && now.scanId ? recordedScan(now, now.scanId) : ended(now);
  }
}

/** A run that ended before its scan was recorded: no scan, and the run's state, which tells the agent to stop. */
const ended = (run: PerchRun) => ({ scanId: '', configHash: '', envId: '', device: toPerchDevice(run) });

/**
 * The scan a run already recorded, answered again; its environment and configuration only if it is a scan of the run's
 * application (updateScanRun checks the ids it records, but a run may hold one recorded before it did).
 */
async function recordedScan(run: PerchRun, scanId: string) {
  const scan = await scanOfApplication(scanId, run);
  return {
    scanId,
    configHash: scan?.configHash ?? '',
    envId: scan?.environmentId ?? '',
    device: toPerchDevice(run),
  };
}
