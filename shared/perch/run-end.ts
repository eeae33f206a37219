import { badRequest, unauthorized } from '../errors.ts';
import { holdsPermission, type Caller } from '../context/caller.ts';
import { logger } from '../context/logger.ts';
import { accessibleApplication } from '../applications/access.ts';
import { scanOfApplication } from '../results/scan-repository.ts';
import { reportScanCompleted } from '../scans/reporting.ts';
import { coverageWrite } from '../scans/coverage.ts';
import { putObject } from '../storage/objects-io.ts';
import { objectKeys } from '../storage/objects.ts';
import { carriedRun, updateRun } from './agents.ts';
import { toPerchDevice } from './commands.ts';
import { carriedRunEnd, getRun, RunMovedOn } from './repository.ts';
import { type PerchRun, isActive } from './model.ts';
import { wakeAgents } from './signals.ts';
import { endRetest } from './retests.ts';
import type { RunEndBody } from './inputs.ts';

// endScanRun (docs/HOSTED-SCANS.md, The run's end): the carrying agent ends its run in one call, which stores the
// log's last part, then completes the run's scan, stores its coverage record and ends the run in one transaction.

/**
 * POST /api/v1/app/{appId}/perch/runs/{scanKey}/end?deviceId=...: the log first (S3 is no part of a DynamoDB
 * transaction: stored before anything reads as ended, whoever sees the end reads the whole log), then the scan's
 * completion (as reportScanCompleted writes it) and the run's end (its device and slot freed) in one transaction.
 * A run that already ended is answered as it is: a call sent again (its answer lost) stores the same log and ends
 * nothing twice.
 */
export async function endScanRun(
  caller: Caller,
  appId: string,
  scanKey: string,
  deviceId: string,
  readBody: () => Promise<RunEndBody>,
) {
  const run = await carriedRun(caller, appId, scanKey, deviceId);
  if (run.kind === 'PROFILE') throw badRequest(`run ${scanKey} is a profile scan: uploadProfileScanResult ends it`);
  const body = await readBody();
  if (body.state === 'ERROR' && !body.error) throw badRequest('error: required when state is ERROR');
  const scan = run.scanId && isActive(run) ? await scanOfApplication(run.scanId, run) : undefined;
  // A retest's outcome marks its finding as a scan's completion would: reportScanCompleted's permission.
  if (scan?.status === 'STARTED' || (run.kind === 'RETEST' && isActive(run))) await mayCompleteScans(caller, appId);
  await putObject(objectKeys.perchRunLog(appId, scanKey), body.log, 'text/plain; charset=utf-8');
  if (run.kind === 'RETEST') return endRetest(run, deviceId, body);
  const update = { deviceId, state: body.state, phase: body.state.toLowerCase(), error: body.error };
  // No scan, or one already ended (by reportScanCompleted, as older agents do): the run's end alone.
  if (scan?.status !== 'STARTED') return updateRun(caller, appId, scanKey, update);
  const ended = (current: PerchRun): PerchRun => ({
    ...current,
    state: body.state,
    phase: update.phase,
    errors: body.error ? [...current.errors, body.error] : current.errors,
    updatedAt: Date.now(),
    endedAt: Date.now(),
  });
  let after: PerchRun | undefined;
  try {
    await reportScanCompleted(
      caller,
      scan.scanId,
      { status: body.state, urlCount: body.coverage?.pages ?? body.urlCount },
      {
        along: async (attempt) => {
          // A later attempt reads the run again: it may have been stopped meanwhile.
          const current = attempt === 1 ? run : await getRun(appId, true);
          if (!current || current.scanKey !== scanKey || !isActive(current)) throw new RunMovedOn(current ?? run);
          after = ended(current);
          // The coverage record lands with the scan's completion, or not at all.
          return [
            ...carriedRunEnd(current, after, deviceId),
            ...(body.coverage ? [coverageWrite(scan, body.coverage)] : []),
          ];
        },
      },
    );
  } catch (error) {
    if (error instanceof RunMovedOn) return { device: toPerchDevice(error.run) };
    if (body.state === 'COMPLETED') throw error;
    // A run ending in ERROR ends even when its scan cannot be completed now (as stopScan's end does).
    logger.warn('the run ended in ERROR left its scan unfinished', { scanId: scan.scanId, error });
    return updateRun(caller, appId, scanKey, update);
  }
  await wakeAgents(run.organizationId); // a slot is free: the next queued run can start
  return { device: toPerchDevice(after!) };
}

/** The route asks for write:device (the run's operations); completing its scan asks for reportScanCompleted's too. */
async function mayCompleteScans(caller: Caller, appId: string) {
  const { membership } = await accessibleApplication(caller, appId, { teamRestricted: true });
  if (!holdsPermission(caller, membership, 'write:scan')) throw unauthorized();
}
