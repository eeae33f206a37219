import type { RunnerTasksConfig } from '../config.ts';
import { retryOnConflict } from '../db/retry.ts';
import { logger } from '../context/logger.ts';
import { UUID } from '../input/uuid.ts';
import { failRun, settled } from './commands.ts';
import { devicesOf, getRun } from './repository.ts';
import { type PerchRun, type RunError, isActive } from './model.ts';
import { RUNNER_CONTAINER } from './runner-container.ts';
import { RUNNER_APPLICATION_VARIABLE } from './runner.ts';

// A hosted runner's ECS Fargate task that stops (docs/HOSTED-SCANS.md, "Where scans run"): ECS's "ECS Task State
// Change" event (an EventBridge rule, infra/stack.ts) ends the run the task carried in ERROR at once, with ECS's
// reason, through the run-ending path of a run whose agent went silent (failRun); the heartbeat window remains the
// fallback. The event carries the task's overrides (shared/perch/runner.ts): the run it was launched for
// (`startedBy`, the application's variable) and its organization (`--org`). The overrides hold the runner's token
// too: the event is never logged.

/** A stopped runner task, as ECS's event tells it. */
export interface StoppedRunnerTask {
  taskArn: string;
  organizationId: string;
  /** The run the task was launched for (it may have carried another of the organization's runs). */
  applicationId: string;
  scanKey: string;
  /** Why the run it carried ends: PROVISIONING when its container never ran, else DEVICE. */
  error: RunError;
}

type Fields = Record<string, unknown>;
const fields = (value: unknown): Fields => (value && typeof value === 'object' ? (value as Fields) : {});
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const clip = (value: string) => (value.length > 300 ? `${value.slice(0, 300)}...` : value);

/** `arn:aws:ecs:<region>:<account>:task-definition/<family>:<revision>` -> family. */
const familyOf = (arn: string | undefined) => /:task-definition\/([^:/]+):\d+$/.exec(arn ?? '')?.[1];

/** The value after `name` in the agent's command (`agent --org <orgId> ...`). */
function argument(command: unknown, name: string): string | undefined {
  if (!Array.isArray(command)) return undefined;
  const at = command.indexOf(name);
  return at >= 0 ? text(command[at + 1]) : undefined;
}

/** What to do, from what ECS said (docs/HOSTED-SCANS.md, "Where scans run"). */
function advice(stopCode: string | undefined, said: string, started: boolean, taskId: string): string {
  if (/CannotPull/i.test(said))
    return "check that the runner's image was pushed (cdk deploy builds and pushes it) and that the task's subnets reach ECR (a public address), then start the scan again";
  if (/ResourceInitializationError/i.test(said))
    return "check the task's execution role and that its subnets reach AWS's endpoints (ECR, CloudWatch Logs), then start the scan again";
  if (!started)
    return 'check the Fargate capacity and the task definition in the ECS console, then start the scan again';
  if (/OutOfMemory/i.test(said))
    return "raise the task's memory (memoryLimitMiB in infra/scan-runner.ts) or scan less at once, then start the scan again";
  if (stopCode === 'SpotInterruption' || stopCode === 'TerminationNotice')
    return 'AWS reclaimed the task (capacity or maintenance): start the scan again';
  if (stopCode === 'UserInitiated') return 'someone stopped the task in ECS: start the scan again';
  return `read the run's log (getScanRunLog) and the task's log (CloudWatch Logs, stream runner/${RUNNER_CONTAINER}/${taskId}), then start the scan again`;
}

/** The run's error from the task's stop code, reason and its container's exit. */
function stopError(detail: Fields, taskId: string): RunError {
  const stopCode = text(detail.stopCode);
  const stoppedReason = text(detail.stoppedReason) ?? 'no reason given';
  const containers: unknown[] = Array.isArray(detail.containers) ? detail.containers : [];
  const agent = fields(containers.find((c) => fields(c).name === RUNNER_CONTAINER));
  const exitCode = typeof agent.exitCode === 'number' ? agent.exitCode : undefined;
  const containerReason = text(agent.reason);
  const said = `${stoppedReason} ${containerReason ?? ''}`;
  const started = !(stopCode === 'TaskFailedToStart' || /CannotPull|ResourceInitializationError/i.test(said));
  const exit = [
    exitCode !== undefined ? `exited with code ${exitCode}` : '',
    containerReason ? `(${clip(containerReason)})` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const message =
    `ECS stopped the hosted runner's task ${taskId} ${started ? 'before the scan ended' : 'before its container ran'}: ` +
    `${clip(stoppedReason)}${stopCode ? ` (${stopCode})` : ''}${exit ? `; its container ${exit}` : ''}; ` +
    advice(stopCode, said, started, taskId);
  return { errorType: started ? 'DEVICE' : 'PROVISIONING', message };
}

/**
 * The stopped runner task an ECS Task State Change event tells of, or why the event is not one (another cluster or
 * task family, a task still running, a task not launched for a run, fields missing).
 */
export function stoppedRunnerTask(event: unknown, tasks: RunnerTasksConfig): StoppedRunnerTask | string {
  const envelope = fields(event);
  if (envelope.source !== 'aws.ecs' || envelope['detail-type'] !== 'ECS Task State Change')
    return 'not an ECS task state change';
  const detail = fields(envelope.detail);
  if (detail.lastStatus !== 'STOPPED') return `the task is ${String(detail.lastStatus)}, not STOPPED`;
  if (detail.clusterArn !== tasks.clusterArn) return "a task of another cluster than the runner's";
  if (familyOf(text(detail.taskDefinitionArn)) !== tasks.family) return "a task of another family than the runner's";
  const taskArn = text(detail.taskArn);
  const overrides = fields(detail.overrides).containerOverrides;
  const container = fields(
    Array.isArray(overrides) ? overrides.find((o) => fields(o).name === RUNNER_CONTAINER) : undefined,
  );
  const organizationId = argument(container.command, '--org');
  const variables: unknown[] = Array.isArray(container.environment) ? container.environment : [];
  const applicationId = text(fields(variables.find((v) => fields(v).name === RUNNER_APPLICATION_VARIABLE)).value);
  const scanKey = text(detail.startedBy);
  if (!taskArn || ![organizationId, applicationId, scanKey].every((id) => id && UUID.test(id)))
    return 'a task not launched for a run (its taskArn, startedBy, --org or application missing)';
  const taskId = taskArn.slice(taskArn.lastIndexOf('/') + 1);
  return {
    taskArn,
    organizationId: organizationId!.toLowerCase(),
    applicationId: applicationId!.toLowerCase(),
    scanKey: scanKey!.toLowerCase(),
    error: stopError(detail, taskId),
  };
}

/**
 * The active run the stopped task carried, or why there is none. Its agent registered with the token issued for the
 * run it was launched for, so its device records that run (PerchDevice.launchedFor; a device another agent
 * registered under the runner's name is not it), and it may have taken another of the organization's queued runs.
 * A runner that took no run (it never registered, or registered and stopped before taking one) leaves the run it
 * was launched for in the queue without a runner: that run ends while still queued. A runner that took a run and
 * ended it leaves the run it was launched for to the agent that took it meanwhile or will.
 */
async function carriedRun(task: StoppedRunnerTask): Promise<PerchRun | string> {
  const own = (await devicesOf(task.organizationId)).filter((device) => device.launchedFor === task.scanKey);
  for (const device of own) {
    if (!device.scanKey || !device.applicationId) continue;
    const run = await getRun(device.applicationId, true);
    if (
      run?.organizationId === task.organizationId &&
      run.scanKey === device.scanKey &&
      run.deviceId === device.deviceId &&
      isActive(run)
    )
      return run;
  }
  if (own.some((device) => device.scanKey || device.lastScanKey))
    return 'its agent carries no run (the run it took ended)';
  const launched = await getRun(task.applicationId, true);
  if (launched?.organizationId === task.organizationId && launched.scanKey === task.scanKey) {
    if (launched.state === 'QUEUED') return launched;
    return `the run it was launched for is ${launched.state}, carried by another agent or over`;
  }
  return 'no run of the organization was launched with it';
}

/**
 * Ends the run the stopped task carried in ERROR (its reported scan too), unless it already ended: a duplicate or
 * late event changes nothing. Conditioned on the run as read, like every end; read again when it changed meanwhile.
 */
export async function endRunOfStoppedTask(task: StoppedRunnerTask): Promise<PerchRun | string> {
  return retryOnConflict(
    {
      conflict: (error) => ((error as { statusCode?: number }).statusCode === 409 ? 'the run changed' : undefined),
    },
    async () => {
      const run = await carriedRun(task);
      if (typeof run === 'string') return run;
      // A runner whose run waited out its deadline in the queue (the organization's limit) exits by itself: the run
      // ends as one no agent took before its deadline, with that reason, not as a stopped task's.
      if (run.state === 'QUEUED' && Date.now() > run.deadlineAt) {
        const after = await settled(run);
        return after?.state === 'ERROR' ? after : `the run it was launched for is ${after?.state ?? 'gone'}`;
      }
      return failRun(run, 'runner stopped', task.error);
    },
  );
}

/** One ECS task state change (functions/end-stopped-runner-scans.ts): never throws for an event it does not take. */
export async function handleTaskStateChange(
  event: unknown,
  tasks: RunnerTasksConfig | undefined,
): Promise<{ ended?: { applicationId: string; scanKey: string; errorType: RunError['errorType'] }; ignored?: string }> {
  const stopped = tasks ? stoppedRunnerTask(event, tasks) : 'no hosted runner is configured';
  const taskArn = text(fields(fields(event).detail).taskArn);
  if (typeof stopped === 'string') {
    logger.info('ECS task state change ignored', { taskArn, why: stopped });
    return { ignored: stopped };
  }
  const outcome = await endRunOfStoppedTask(stopped);
  if (typeof outcome === 'string') {
    logger.info('stopped runner task: no run to end', { taskArn, launchedFor: stopped.scanKey, why: outcome });
    return { ignored: outcome };
  }
  const error = outcome.errors.at(-1)!;
  const ended = { applicationId: outcome.applicationId, scanKey: outcome.scanKey, errorType: error.errorType };
  logger.warn('stopped runner task: its run ended in ERROR', { taskArn, ...ended, reason: error.message });
  return { ended };
}
