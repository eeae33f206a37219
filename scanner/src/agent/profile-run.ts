// Carries out one profile scan (a PROFILE_START command, docs/PROFILE-SCANS.md in the service's repository): the
// prober (../profile) at the target's pinned address, its result uploaded (which ends the run), the log stored. A
// target that may not be reached or a prober that fails ends the run in ERROR with the reason.
import { TargetRefused } from '../net/addresses.ts';
import { profileTarget } from '../profile/profile.ts';
import { serviceCall } from '../api/call.ts';
import { runPath, storeLog, type RunContext, type StartCommand } from './run-context.ts';
import { RunLog } from './run-log.ts';

/** The service's limit on a result's body (uploadProfileScanResult), with the description it carries. */
const MAX_RESULT_BODY_BYTES = 4 * 1024 * 1024;

export async function carryOutProfile(
  command: StartCommand,
  context: Omit<RunContext, 'engines'>,
): Promise<'COMPLETED' | 'ERROR'> {
  const { api, deviceId } = context;
  const log = new RunLog(context.echo);
  const path = runPath(command);
  const sendLog = () =>
    storeLog(api, path, deviceId, log.text()).catch((error: Error) =>
      context.echo?.(`could not store the log: ${error.message}`),
    );
  try {
    log.add(`profile ${command.scanKey} of application ${command.applicationId}, target ${command.targetUrl}`);
    await serviceCall(api, 'POST', '/api/v1/app/{appId}/perch/runs/{scanKey}', {
      path,
      body: { deviceId, phase: 'profiling' },
    });
    const deadline = Number(command.deadline) || Date.now() + 15 * 60_000;
    const result = await profileTarget({
      scanId: command.scanKey,
      targetUrl: command.targetUrl,
      applicationId: command.applicationId,
      env: command.env,
      allowPrivate: command.allowPrivate || context.allowPrivate,
      budget: { maxMs: Math.max(1000, Math.min(60_000, deadline - Date.now() - 10_000)) },
      signal: context.signal,
      log: (line) => log.add(line),
      keepDescription: true,
    });
    for (const note of result.notes) log.add(`note: ${note}`);
    if (context.signal.aborted) throw new Error('stopped');
    // The discovered description goes with the result, for the service to validate and keep; one the body limit
    // cannot carry once JSON-escaped is left out (the result then says it was not validated).
    if (result.discoveredOpenapiSpec && Buffer.byteLength(JSON.stringify(result)) > MAX_RESULT_BODY_BYTES) {
      log.add(`the description at ${result.discoveredOpenapiSpecPath} is too large to send with the result: not sent`);
      delete result.discoveredOpenapiSpec;
    }
    // The result's upload ends the run: the log is stored first, so whoever sees the end and opens it reads it all.
    await sendLog();
    await serviceCall(api, 'PUT', '/api/v1/app/{appId}/perch/runs/{scanKey}/profile', {
      path,
      query: { deviceId },
      body: result,
    });
    log.add('result stored');
    return 'COMPLETED';
  } catch (error) {
    const message =
      error instanceof TargetRefused
        ? error.message
        : `the profile failed: ${(error as Error).message}; check that the target is up and reachable from the agent, then launch the profile again`;
    log.add(`ERROR: ${message}`);
    await sendLog();
    await serviceCall(api, 'POST', '/api/v1/app/{appId}/perch/runs/{scanKey}', {
      path,
      body: {
        deviceId,
        state: 'ERROR',
        phase: 'error',
        error: { errorType: 'UNKNOWN', message: message.slice(0, 2000) },
      },
    }).catch((e: Error) => log.add(`final update: ${e.message}`));
    return 'ERROR';
  } finally {
    await sendLog();
  }
}
