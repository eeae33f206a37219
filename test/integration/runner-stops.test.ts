import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { api, baseUrl } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { RUNNER_TASKS, STOPS, runnerAt, taskStateChange } from './ecs-events.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { getRun, slotsOf } from '../../shared/perch/repository.ts';
import { type PerchRun } from '../../shared/perch/model.ts';
import { handleTaskStateChange, stoppedRunnerTask } from '../../shared/perch/runner-stops.ts';
import { runnerName, runnerTask, runnerToken } from '../../shared/perch/runner.ts';
import { createCaller } from '../../shared/identity/caller.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { config } from '../../shared/config.ts';

// A hosted runner's ECS task that stops without its agent reporting (docs/HOSTED-SCANS.md, "Where scans run"):
// ECS's task state change events, in the shape EventBridge delivers them, end the run the task carried in ERROR
// at once with ECS's reason; a run that already ended, a duplicate event, another task's event change nothing.

async function cloudApp(tenant: Tenant) {
  const out = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
    token: tenant.token,
    body: {
      name: `cloud-${randomUUID()}`,
      env: 'production',
      applicationType: 'CLOUD',
      cloudScanTargetURL: 'http://127.0.0.1:9/',
    },
  });
  expect(out.status, out.text).toBe(200);
  return out.body.applicationId as string;
}

const apiKeyIdOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).akid;

/**
 * startScan; answers the run as stored, the RunTask request its runner is launched with, and the runner's token
 * (runnerToken, issued for the run as startScan issues it).
 */
async function started(tenant: Tenant, appId: string) {
  const out = await api('POST', `/api/v1/app/${appId}/perch/start`, {
    token: tenant.token,
    body: { command: { command: 'START' }, env: 'production' },
  });
  expect(out.status, out.text).toBe(200);
  const run = (await getRun(appId, true))!;
  const caller = createCaller({ userId: tenant.userId, apiKeyId: apiKeyIdOf(tenant.token) }, undefined);
  const token = await runnerToken(caller, run);
  return { run, token, task: runnerTask(run, runnerAt(baseUrl()), token) };
}

/** An agent registering under the name of the runner launched for `launched`, with `token`. */
async function registered(tenant: Tenant, launched: PerchRun, token: string) {
  const out = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, {
    token,
    body: { name: runnerName(launched.scanKey), engines: ['wapiti'] },
  });
  expect(out.status, out.text).toBe(200);
  return out.body.deviceId as string;
}

/**
 * What the runner's agent does (with its own token, `token`; a member's agent under the runner's name, with the
 * member's): registers under the runner's name, takes the oldest queued run, reports its scan.
 */
async function runnerTakes(tenant: Tenant, launched: PerchRun, token: string) {
  const deviceId = await registered(tenant, launched, token);
  const { command } = (
    await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}/poll`, {
      token,
      body: { waitSeconds: 0 },
    })
  ).body;
  const acked = await api(
    'POST',
    `/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}/commands/${command.commandId}/ack`,
    { token, body: { applicationId: command.applicationId } },
  );
  expect(acked.status, acked.text).toBe(200);
  const scan = await api('POST', `/api/v1/app/${command.applicationId}/scan`, {
    token,
    body: {
      env: 'production',
      config: 'app:\n  env: production\n',
      hawkscanVersion: 'hawk-agent',
      host: 'http://127.0.0.1:9/',
    },
  });
  expect(scan.status, scan.text).toBe(200);
  const update = await api('POST', `/api/v1/app/${command.applicationId}/perch/runs/${command.scanKey}`, {
    token,
    body: { deviceId, scanId: scan.body.scanId, phase: 'attack' },
  });
  expect(update.status, update.text).toBe(200);
  return {
    deviceId,
    appId: command.applicationId as string,
    scanKey: command.scanKey as string,
    scanId: scan.body.scanId,
  };
}

const statusOf = async (tenant: Tenant, appId: string) =>
  (await api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token })).body.device;

async function scanStatus(tenant: Tenant, scanId: string) {
  const scans = await api('GET', `/api/v1/scan/${tenant.orgId}`, {
    token: tenant.token,
    query: { applicationTypes: 'CLOUD' },
  });
  return scans.body.applicationScanResults.find((r: any) => r.scan.id === scanId)?.scan.status;
}

describe('the end of a stopped runner task (ECS task state change events)', { timeout: 120_000 }, () => {
  it('launches the runner so that its stop event names the run: the scan key in startedBy (36 characters, the limit)', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    const { run, task } = await started(tenant, appId);
    expect(task.startedBy).toBe(run.scanKey);
    expect(task.startedBy!.length).toBeLessThanOrEqual(36);
  });

  it("ends the run a runner killed for memory carried in ERROR (DEVICE) with ECS's reason, its scan in ERROR, device and slot freed; a duplicate event changes nothing", async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const [first, second] = [await cloudApp(tenant), await cloudApp(tenant)];
    const launchedFirst = await started(tenant, first);
    const launchedSecond = await started(tenant, second);
    // The runner launched for the second run starts first and takes the oldest queued one: the first.
    const carried = await runnerTakes(tenant, launchedSecond.run, launchedSecond.token);
    expect(carried.appId).toBe(first);
    expect((await slotsOf(tenant.orgId)).running).toBe(1);

    const event = taskStateChange(launchedSecond.task, STOPS.outOfMemory);
    expect(await handleTaskStateChange(event, RUNNER_TASKS)).toEqual({
      ended: { applicationId: first, scanKey: launchedFirst.run.scanKey, errorType: 'DEVICE' },
    });
    const device = await statusOf(tenant, first);
    expect(device.status).toBe('HOSTED_SCANNER_ERRORED');
    expect(device.command.errors).toEqual([
      {
        errorType: 'DEVICE',
        message: expect.stringMatching(
          /^ECS stopped the hosted runner's task [0-9a-f]{32} before the scan ended: Essential container in task exited \(EssentialContainerExited\); its container exited with code 137 \(OutOfMemoryError: Container killed due to memory usage\); raise the task's memory/,
        ),
      },
    ]);
    expect(await scanStatus(tenant, carried.scanId)).toBe('ERROR');
    expect((await slotsOf(tenant.orgId)).running).toBe(0);
    const devices = (await api('GET', `/api/v1/org/${tenant.orgId}/perch/devices`, { token: tenant.token })).body;
    expect(devices.devices.find((d: any) => d.deviceId === carried.deviceId).scanKey).toBe('');
    // The run the task was launched for is not the one it carried: it stays queued for the next runner.
    expect((await getRun(second, true))!.state).toBe('QUEUED');

    const ended = (await getRun(first, true))!;
    expect(ended).toMatchObject({ state: 'ERROR', phase: 'runner stopped' });
    expect(await handleTaskStateChange(event, RUNNER_TASKS)).toEqual({
      ignored: 'its agent carries no run (the run it took ended)',
    });
    expect(await getRun(first, true)).toEqual(ended);
    // Its runner took a run: the one it was launched for is left to the agent that takes it.
    expect((await getRun(second, true))!.state).toBe('QUEUED');
  });

  it('ends the run a runner was launched for, still queued, when its agent registered and stopped before taking one', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    const { run, task, token } = await started(tenant, appId);
    // Registered, then killed for memory before acknowledging its command.
    await registered(tenant, run, token);
    const event = taskStateChange(task, STOPS.outOfMemory);
    expect(await handleTaskStateChange(event, RUNNER_TASKS)).toEqual({
      ended: { applicationId: appId, scanKey: run.scanKey, errorType: 'DEVICE' },
    });
    const device = await statusOf(tenant, appId);
    expect(device.status).toBe('HOSTED_SCANNER_ERRORED');
    expect(device.command.errors).toEqual([
      {
        errorType: 'DEVICE',
        message: expect.stringMatching(
          /^ECS stopped the hosted runner's task [0-9a-f]{32} before the scan ended: .*exited with code 137 \(OutOfMemoryError: Container killed due to memory usage\); raise the task's memory/,
        ),
      },
    ]);
    const ended = (await getRun(appId, true))!;
    expect(ended).toMatchObject({ state: 'ERROR', phase: 'runner stopped' });
    expect(await handleTaskStateChange(event, RUNNER_TASKS)).toEqual({
      ignored: 'the run it was launched for is ERROR, carried by another agent or over',
    });
    expect(await getRun(appId, true)).toEqual(ended);
  });

  it('ends the run a runner waited for past its deadline as a run no agent took when the runner exits idle', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    const { run, task, token } = await started(tenant, appId);
    await registered(tenant, run, token);
    // It waited in the queue until its deadline (--max-idle), then its agent exited by itself.
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.perchRun(appId),
        UpdateExpression: 'SET deadlineAt = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1000 },
      }),
    );
    expect(await handleTaskStateChange(taskStateChange(task, STOPS.exited), RUNNER_TASKS)).toEqual({
      ended: { applicationId: appId, scanKey: run.scanKey, errorType: 'PROVISIONING' },
    });
    expect((await statusOf(tenant, appId)).command.errors).toEqual([
      {
        errorType: 'PROVISIONING',
        message: expect.stringMatching(/^no scanner agent took the scan before its deadline/),
      },
    ]);
  });

  it("never takes a member's own agent registered under the runner's name for the runner: its run goes on", async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const [first, second] = [await cloudApp(tenant), await cloudApp(tenant)];
    const launchedFirst = await started(tenant, first);
    const launchedSecond = await started(tenant, second);
    // A member's agent named as the second run's runner, with the member's own token, takes the oldest run.
    const members = await runnerTakes(tenant, launchedSecond.run, tenant.token);
    expect(members.appId).toBe(first);
    const before = (await getRun(first, true))!;

    // The second run's runner never registered: its stop ends the run it was launched for, still queued.
    expect(await handleTaskStateChange(taskStateChange(launchedSecond.task, STOPS.cannotPull), RUNNER_TASKS)).toEqual({
      ended: { applicationId: second, scanKey: launchedSecond.run.scanKey, errorType: 'PROVISIONING' },
    });
    expect(await getRun(first, true)).toEqual(before);
    expect(before).toMatchObject({ state: 'RUNNING', deviceId: members.deviceId });
    const devices = (await api('GET', `/api/v1/org/${tenant.orgId}/perch/devices`, { token: tenant.token })).body;
    expect(devices.devices.find((d: any) => d.deviceId === members.deviceId)).toMatchObject({
      name: runnerName(launchedSecond.run.scanKey),
      scanKey: launchedFirst.run.scanKey,
    });
  });

  it('ends the run of a runner whose image could not be pulled in ERROR (PROVISIONING), out of the queue', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    const { run, task } = await started(tenant, appId);
    const event = taskStateChange(task, STOPS.cannotPull);
    expect(await handleTaskStateChange(event, RUNNER_TASKS)).toEqual({
      ended: { applicationId: appId, scanKey: run.scanKey, errorType: 'PROVISIONING' },
    });
    const device = await statusOf(tenant, appId);
    expect(device.status).toBe('HOSTED_SCANNER_ERRORED');
    expect(device.command.errors).toEqual([
      {
        errorType: 'PROVISIONING',
        message: expect.stringMatching(
          /before its container ran: CannotPullContainerError: pull image manifest has been retried 7 time\(s\).*\(TaskFailedToStart\); check that the runner's image was pushed/,
        ),
      },
    ]);
    // Nothing is left in the queue for an agent: the next poll offers nothing, and the application can scan again.
    const agent = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, {
      token: tenant.token,
      body: { name: 'agent', engines: ['wapiti'] },
    });
    const poll = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices/${agent.body.deviceId}/poll`, {
      token: tenant.token,
      body: { waitSeconds: 0 },
    });
    expect(poll.body).toEqual({});
    const ended = (await getRun(appId, true))!;
    expect(await handleTaskStateChange(event, RUNNER_TASKS)).toEqual({
      ignored: 'the run it was launched for is ERROR, carried by another agent or over',
    });
    expect(await getRun(appId, true)).toEqual(ended);
  });

  it('leaves a run its agent completed exactly as it is when the task then stops', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    const { task, run, token } = await started(tenant, appId);
    const carried = await runnerTakes(tenant, run, token);
    // Its agent, with the runner's token: only it drives the runner's device (docs/HOSTED-SCANS.md, Whose device it is).
    const completed = await api('POST', `/api/v1/app/${appId}/perch/runs/${run.scanKey}`, {
      token,
      body: { deviceId: carried.deviceId, state: 'COMPLETED' },
    });
    expect(completed.status, completed.text).toBe(200);
    const before = (await getRun(appId, true))!;
    expect(before.state).toBe('COMPLETED');
    for (const stop of [STOPS.exited, STOPS.outOfMemory])
      expect(await handleTaskStateChange(taskStateChange(task, stop), RUNNER_TASKS)).toEqual({
        ignored: 'its agent carries no run (the run it took ended)',
      });
    expect(await getRun(appId, true)).toEqual(before);
  });

  it("tells what to do from ECS's stop: capacity reclaimed, a task that could not be prepared, an agent that failed", () => {
    const task = runnerTask(
      {
        scanKey: randomUUID(),
        organizationId: randomUUID(),
        applicationId: randomUUID(),
        deadlineAt: Date.now(),
      } as PerchRun,
      runnerAt('https://api.example.test'),
      'the-runner-token',
    );
    const errorOf = (stop: Parameters<typeof taskStateChange>[1]) => {
      const event = taskStateChange(task, stop);
      const stopped = stoppedRunnerTask(event, RUNNER_TASKS);
      if (typeof stopped === 'string') throw new Error(stopped);
      return { ...stopped.error, taskId: event.detail.taskArn.split('/').pop() };
    };
    expect(
      errorOf({
        stopCode: 'SpotInterruption',
        stoppedReason: 'Your Spot Task was interrupted.',
        container: { exitCode: 143 },
      }),
    ).toMatchObject({
      errorType: 'DEVICE',
      message: expect.stringMatching(
        /Your Spot Task was interrupted\. \(SpotInterruption\); its container exited with code 143; AWS reclaimed the task/,
      ),
    });
    expect(
      errorOf({
        stopCode: 'TaskFailedToStart',
        stoppedReason:
          'ResourceInitializationError: unable to pull secrets or registry auth: execution resource retrieval failed: unable to retrieve ecr registry auth',
      }),
    ).toMatchObject({
      errorType: 'PROVISIONING',
      message: expect.stringMatching(
        /before its container ran: ResourceInitializationError.*check the task's execution role/,
      ),
    });
    const failed = errorOf({
      stopCode: 'EssentialContainerExited',
      stoppedReason: 'Essential container in task exited',
      container: { exitCode: 1 },
    });
    expect(failed.errorType).toBe('DEVICE');
    expect(failed.message).toContain(
      `its container exited with code 1; read the run's log (getScanRunLog) and the task's log (CloudWatch Logs, stream runner/agent/${failed.taskId})`,
    );
  });

  it("changes nothing for an unknown task, another organization's run, or an event that is not a runner's stop", async () => {
    const [tenant, other] = [await createTenant(), await createTenant()];
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    const { task, run } = await started(tenant, appId);
    const [container] = task.overrides!.containerOverrides!;
    const withOrg = (orgId: string) => ({
      ...task,
      overrides: {
        containerOverrides: [
          { ...container, command: container.command!.map((arg, i, all) => (all[i - 1] === '--org' ? orgId : arg)) },
        ],
      },
    });
    const unknown = { ...task, startedBy: randomUUID() };
    expect(await handleTaskStateChange(taskStateChange(unknown, STOPS.cannotPull), RUNNER_TASKS)).toEqual({
      ignored: 'no run of the organization was launched with it',
    });
    expect(await handleTaskStateChange(taskStateChange(withOrg(other.orgId), STOPS.cannotPull), RUNNER_TASKS)).toEqual({
      ignored: 'no run of the organization was launched with it',
    });

    const stopped = taskStateChange(task, STOPS.outOfMemory);
    const partial: [unknown, string][] = [
      [undefined, 'not an ECS task state change'],
      [{}, 'not an ECS task state change'],
      [{ ...stopped, 'detail-type': 'ECS Container Instance State Change' }, 'not an ECS task state change'],
      [{ ...stopped, detail: undefined }, 'the task is undefined, not STOPPED'],
      [taskStateChange(task, { ...STOPS.outOfMemory, lastStatus: 'RUNNING' }), 'the task is RUNNING, not STOPPED'],
      [
        taskStateChange(task, { ...STOPS.outOfMemory, family: 'other-family' }),
        "a task of another family than the runner's",
      ],
      [
        taskStateChange(task, { ...STOPS.outOfMemory, clusterArn: `${RUNNER_TASKS.clusterArn}-other` }),
        "a task of another cluster than the runner's",
      ],
      [
        { ...stopped, detail: { ...stopped.detail, overrides: undefined } },
        'a task not launched for a run (its taskArn, startedBy, --org or application missing)',
      ],
      [
        { ...stopped, detail: { ...stopped.detail, startedBy: 'ecs-svc/9223370545345641169' } },
        'a task not launched for a run (its taskArn, startedBy, --org or application missing)',
      ],
      [
        {
          ...stopped,
          detail: { ...stopped.detail, overrides: { containerOverrides: [{ name: 'agent', command: 7 }] } },
        },
        'a task not launched for a run (its taskArn, startedBy, --org or application missing)',
      ],
    ];
    for (const [event, why] of partial)
      expect(await handleTaskStateChange(event, RUNNER_TASKS)).toEqual({ ignored: why });
    expect(await handleTaskStateChange(stopped, undefined)).toEqual({ ignored: 'no hosted runner is configured' });
    expect(await getRun(appId, true)).toEqual(run);
  });
});
