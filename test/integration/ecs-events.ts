import { randomBytes, randomUUID } from 'node:crypto';
import type { RunTaskCommandInput } from '@aws-sdk/client-ecs';
import { RUNNER_CONTAINER } from '../../shared/perch/runner-container.ts';

// ECS "ECS Task State Change" events as EventBridge delivers them for a stopped Fargate task, in the shape of the
// example in AWS's documentation (Amazon ECS Developer Guide, "Amazon ECS task state change events"): the envelope,
// and a detail carrying the task's overrides, startedBy, stop code and reason, and each container's exit.

export const ACCOUNT = '111122223333';
export const REGION = 'us-east-1';
export const RUNNER_TASKS = {
  clusterArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:cluster/HawkApi-ScanRunnerCluster`,
  family: 'HawkApiScanRunnerTaskDefinition1A2B3C4D',
};

export interface TaskStop {
  stopCode?: string;
  stoppedReason?: string;
  /** The agent container's exit: absent when the container never ran. */
  container?: { exitCode?: number; reason?: string };
  family?: string;
  clusterArn?: string;
  lastStatus?: string;
}

/** The event of a task RunTask started with `input` (shared/perch/runner.ts's runnerTask), as it stops. */
export function taskStateChange(input: RunTaskCommandInput, stop: TaskStop) {
  const clusterArn = stop.clusterArn ?? RUNNER_TASKS.clusterArn;
  const taskId = randomBytes(16).toString('hex');
  const taskArn = `arn:aws:ecs:${REGION}:${ACCOUNT}:task/${clusterArn.split('/').pop()}/${taskId}`;
  const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString();
  const ran = stop.container?.exitCode !== undefined;
  const eni = `eni-${randomBytes(8).toString('hex').slice(0, 17)}`;
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'ECS Task State Change',
    source: 'aws.ecs',
    account: ACCOUNT,
    time: at(0),
    region: REGION,
    resources: [taskArn],
    detail: {
      attachments: [
        {
          id: randomUUID(),
          type: 'eni',
          status: 'DELETED',
          details: [
            { name: 'subnetId', value: 'subnet-0a1b2c3d4e5f67890' },
            { name: 'networkInterfaceId', value: eni },
            { name: 'macAddress', value: '0e:2b:3c:4d:5e:6f' },
            { name: 'privateIPv4Address', value: '10.0.0.57' },
          ],
        },
      ],
      attributes: [{ name: 'ecs.cpu-architecture', value: 'x86_64' }],
      availabilityZone: `${REGION}a`,
      clusterArn,
      connectivity: 'CONNECTED',
      connectivityAt: at(120),
      containers: [
        {
          containerArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:container/${clusterArn.split('/').pop()}/${taskId}/${randomUUID()}`,
          lastStatus: 'STOPPED',
          name: RUNNER_CONTAINER,
          image: `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/cdk-hnb659fds-container-assets-${ACCOUNT}-${REGION}:0123abcd`,
          taskArn,
          networkInterfaces: [{ attachmentId: randomUUID(), privateIpv4Address: '10.0.0.57' }],
          cpu: '0',
          ...(ran ? { runtimeId: `${taskId}-1234567890`, imageDigest: `sha256:${'ab'.repeat(32)}` } : {}),
          ...(stop.container?.exitCode !== undefined ? { exitCode: stop.container.exitCode } : {}),
          ...(stop.container?.reason ? { reason: stop.container.reason } : {}),
        },
      ],
      cpu: '1024',
      createdAt: at(130),
      desiredStatus: 'STOPPED',
      enableExecuteCommand: false,
      ephemeralStorage: { sizeInGiB: 20 },
      executionStoppedAt: at(2),
      group: `family:${stop.family ?? RUNNER_TASKS.family}`,
      launchType: 'FARGATE',
      lastStatus: stop.lastStatus ?? 'STOPPED',
      memory: '2048',
      overrides: input.overrides,
      platformVersion: '1.4.0',
      ...(ran ? { pullStartedAt: at(125), pullStoppedAt: at(110), startedAt: at(100) } : {}),
      startedBy: input.startedBy,
      stoppingAt: at(3),
      stoppedAt: at(1),
      ...(stop.stopCode ? { stopCode: stop.stopCode } : {}),
      ...(stop.stoppedReason ? { stoppedReason: stop.stoppedReason } : {}),
      updatedAt: at(1),
      taskArn,
      taskDefinitionArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:task-definition/${stop.family ?? RUNNER_TASKS.family}:3`,
      version: 5,
    },
  };
}

/** The runner's settings a test launches with (shared/config.ts, ScanRunnerConfig). */
export const runnerAt = (apiUrl: string) => ({
  cluster: RUNNER_TASKS.clusterArn,
  taskDefinition: `arn:aws:ecs:${REGION}:${ACCOUNT}:task-definition/${RUNNER_TASKS.family}:3`,
  subnets: ['subnet-0a1b2c3d4e5f67890'],
  securityGroup: 'sg-0123456789abcdef0',
  apiUrl,
});

/** Stops seen on Fargate: the agent killed for memory, an image that could not be pulled, an agent that exited. */
export const STOPS = {
  outOfMemory: {
    stopCode: 'EssentialContainerExited',
    stoppedReason: 'Essential container in task exited',
    container: { exitCode: 137, reason: 'OutOfMemoryError: Container killed due to memory usage' },
  },
  cannotPull: {
    stopCode: 'TaskFailedToStart',
    stoppedReason:
      'CannotPullContainerError: pull image manifest has been retried 7 time(s): failed to resolve ref 111122223333.dkr.ecr.us-east-1.amazonaws.com/cdk-hnb659fds-container-assets-111122223333-us-east-1:0123abcd: not found',
    container: {},
  },
  exited: {
    stopCode: 'EssentialContainerExited',
    stoppedReason: 'Essential container in task exited',
    container: { exitCode: 0 },
  },
} satisfies Record<string, TaskStop>;
