import type { RunTaskCommandInput } from '@aws-sdk/client-ecs';
import { config, type ScanRunnerConfig } from '../config.ts';
import { issueAccessToken } from '../auth/tokens.ts';
import { holdsPermission, type Caller } from '../context/caller.ts';
import { logger } from '../context/logger.ts';
import { PEER_ATTEMPTS, retryOnConflict, type RetriesExhausted } from '../db/retry.ts';
import type { Permission } from '../context/permissions.ts';
import type { PerchRun } from './model.ts';
import { RUNNER_CONTAINER } from './runner-container.ts';

// The hosted runner (docs/HOSTED-SCANS.md, "Where scans run"): on AWS, startScan launches the scanner agent once
// (`hawk-scanner agent --once`) as an ECS Fargate task of the stack's scan runner (infra/scan-runner.ts); it takes
// the organization's oldest queued run, as any agent does, carries it out and exits. Locally there is no runner:
// the embedded agent of `npm start` takes the runs.

/** What the runner's token allows: the agent's operations and the reporting path, nothing else. */
export const RUNNER_PERMISSIONS: Permission[] = ['write:device', 'write:scan'];
/**
 * A runner that took no run in this time exits (another agent took the run it was launched for); longer while its
 * run may still wait in the queue for one of the organization's running scans to end (until its deadline).
 */
export const RUNNER_MAX_IDLE_SECONDS = 300;
const idleSeconds = (run: PerchRun, now = Date.now()) =>
  Math.max(RUNNER_MAX_IDLE_SECONDS, Math.ceil((run.deadlineAt - now) / 1000));
/**
 * RunTask is tried again when provisioning fails (capacity, a throttled call), RETRY_DELAY_MS after the first attempt,
 * then twice that, while the launch is under LAUNCH_BUDGET_MS old: three attempts when ECS answers at once, so that
 * startScan answers well within API Gateway's 29 s.
 */
const RETRY_DELAY_MS = 2000;
const LAUNCH_BUDGET_MS = 5000;

/** A RunTask that started no task, or failed: worth another attempt. */
class NotLaunched extends Error {}

/**
 * The device name a run's runner registers with (its agent's `--name`), for people: its stopped task's device is
 * found by the run its token was issued for, which no other agent can claim (runnerToken).
 */
export const runnerName = (scanKey: string) => `hosted runner ${scanKey.slice(0, 8)}`;
/**
 * The runner's environment variable naming the application of the run it was launched for. The agent does not read
 * it: ECS's task state change events carry the task's overrides, so the service knows which run a stopped task was
 * launched for (shared/perch/runner-stops.ts), with the scan key in `startedBy` and the organization in `--org`.
 */
export const RUNNER_APPLICATION_VARIABLE = 'HAWK_LAUNCHED_FOR_APPLICATION';

/** The RunTask request of a run's runner. The access token rides in the task's environment, never in its command. */
export function runnerTask(run: PerchRun, runner: ScanRunnerConfig, token: string): RunTaskCommandInput {
  return {
    cluster: runner.cluster,
    taskDefinition: runner.taskDefinition,
    launchType: 'FARGATE',
    count: 1,
    // Idempotent per run: a retried call does not start a second task.
    clientToken: run.scanKey,
    // The run's scan key, whole: a UUID is 36 characters, startedBy's limit.
    startedBy: run.scanKey,
    networkConfiguration: {
      awsvpcConfiguration: {
        subnets: runner.subnets,
        securityGroups: [runner.securityGroup],
        assignPublicIp: 'ENABLED',
      },
    },
    overrides: {
      containerOverrides: [
        {
          name: RUNNER_CONTAINER,
          command: [
            'agent',
            '--org',
            run.organizationId,
            '--once',
            '--max-idle',
            String(idleSeconds(run)),
            '--name',
            runnerName(run.scanKey),
          ],
          environment: [
            { name: 'HAWK_API_URL', value: runner.apiUrl },
            { name: 'HAWK_ACCESS_TOKEN', value: token },
            { name: RUNNER_APPLICATION_VARIABLE, value: run.applicationId },
          ],
        },
      ],
    },
  };
}

/**
 * The runner's access token: the starter's session narrowed to RUNNER_PERMISSIONS (within the starter's key's own
 * scope) and to the run's organization, and ending with the run at the latest (its wait in the queue, then its scan), so it is worth nothing once
 * the run is over. It names the run it was issued for (signed, so no other agent can claim it): the device the
 * runner registers records it, and its task's stop finds that device by it (shared/perch/runner-stops.ts).
 */
export async function runnerToken(caller: Caller, run: PerchRun, now = Date.now()): Promise<string> {
  const allowed = caller.scope?.permissions;
  const notAfter = run.deadlineAt + config.perchMaxScanSeconds * 1000;
  return issueAccessToken(run.userId, caller.apiKeyId, now, {
    scope: {
      permissions: allowed ? RUNNER_PERMISSIONS.filter((p) => allowed.includes(p)) : RUNNER_PERMISSIONS,
      ...(caller.scope?.applicationId ? { applicationId: caller.scope.applicationId } : {}),
      // The run's organization only: the starter's other organizations (their queues, their scan secrets) are
      // never reachable from a runner carrying this organization's scan configuration.
      organizationId: run.organizationId,
    },
    notAfter,
    lifetimeSeconds: Math.ceil((notAfter - now) / 1000),
    launchedFor: run.scanKey,
  });
}

/**
 * Launches the run's runner when the stack has one (on AWS). Answers undefined when launched (or when there is no
 * runner here), else why it could not be: the run then ends in ERROR (PROVISIONING).
 */
export async function launchRunner(caller: Caller, run: PerchRun): Promise<string | undefined> {
  const runner = config.scanRunner;
  // A run requiring labels waits for an agent carrying them (docs/HOSTED-SCANS.md, Agent pools): a runner has none.
  if (!runner || run.requiredLabels?.length) return undefined;
  const membership = await caller.authorize(run.organizationId);
  if (!holdsPermission(caller, membership, 'write:device'))
    return 'the hosted runner acts for the scan\'s starter, who lacks write:device: grant it (or run an agent of your own, "hawk-scanner agent") and start the scan again';
  const { ECSClient, RunTaskCommand } = await import('@aws-sdk/client-ecs');
  const ecs = new ECSClient({ region: config.region });
  const input = runnerTask(run, runner, await runnerToken(caller, run));
  let why = '';
  const retry = {
    attempts: PEER_ATTEMPTS,
    budgetMs: LAUNCH_BUDGET_MS,
    waitMs: (attempt: number) => RETRY_DELAY_MS * attempt,
    conflict: (error: unknown) => (error instanceof NotLaunched ? error.message : undefined),
  };
  try {
    return await retryOnConflict(retry, async (attempt) => {
      try {
        const out = await ecs.send(new RunTaskCommand(input));
        if (out.tasks?.length) {
          logger.info('hosted runner launched', { scanKey: run.scanKey, task: out.tasks[0].taskArn });
          return undefined;
        }
        why = (out.failures ?? []).map((f) => `${f.reason ?? 'failed'}${f.detail ? ` (${f.detail})` : ''}`).join('; ');
      } catch (error) {
        why = (error as Error).message;
      }
      logger.warn('hosted runner not launched', { scanKey: run.scanKey, attempt, why });
      throw new NotLaunched(why);
    });
  } catch (error) {
    if (!(error instanceof NotLaunched)) throw error;
    const { attempts } = error as NotLaunched & RetriesExhausted;
    return `the hosted runner could not be started on ECS Fargate after ${attempts} attempts (${why.slice(0, 500) || 'no task'}): start the scan again later, or run an agent of your own ("hawk-scanner agent")`;
  }
}
