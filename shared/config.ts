// Runtime configuration, read once from the environment. The same handlers run on AWS (names injected by the
// CDK stack) and locally (scripts/start.ts sets endpoints for DynamoDB Local and s3rver).

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** A positive integer the environment may set; undefined when it does not. */
const optionalPositiveInt = (name: string) => (process.env[name] ? positiveInt(name, 0) : undefined);

/** On AWS: where startScan launches the hosted runner (shared/perch/runner.ts; the stack sets these). */
export interface ScanRunnerConfig {
  cluster: string;
  taskDefinition: string;
  subnets: string[];
  securityGroup: string;
  /** The API's URL, which the runner's agent calls. */
  apiUrl: string;
}

function scanRunner(): ScanRunnerConfig | undefined {
  const taskDefinition = process.env.SCAN_RUNNER_TASK_DEFINITION;
  if (!taskDefinition) return undefined;
  return {
    cluster: process.env.SCAN_RUNNER_CLUSTER ?? '',
    taskDefinition,
    subnets: (process.env.SCAN_RUNNER_SUBNETS ?? '').split(',').filter(Boolean),
    securityGroup: process.env.SCAN_RUNNER_SECURITY_GROUP ?? '',
    apiUrl: process.env.SCAN_RUNNER_API_URL ?? '',
  };
}

/** On AWS, in the function that ends the runs of stopped runner tasks: which tasks are the runner's (the stack sets these). */
export interface RunnerTasksConfig {
  clusterArn: string;
  /** The runner's task definition family: a task of any of its revisions is a runner. */
  family: string;
}

function runnerTasks(): RunnerTasksConfig | undefined {
  const family = process.env.SCAN_RUNNER_TASK_FAMILY;
  return family ? { clusterArn: process.env.SCAN_RUNNER_CLUSTER ?? '', family } : undefined;
}

/**
 * On AWS: where the schedules of hosted scans live in EventBridge Scheduler (shared/schedules/clock.ts; the stack
 * sets these): the schedule group, the function each schedule invokes and the role the scheduler invokes it with.
 */
export interface SchedulerConfig {
  group: string;
  targetArn: string;
  roleArn: string;
}

function scheduler(): SchedulerConfig | undefined {
  const group = process.env.SCAN_SCHEDULE_GROUP;
  if (!group) return undefined;
  return {
    group,
    targetArn: process.env.SCAN_SCHEDULE_TARGET_ARN ?? '',
    roleArn: process.env.SCAN_SCHEDULE_ROLE_ARN ?? '',
  };
}

export const config = {
  region: process.env.AWS_REGION ?? 'us-east-1',
  tableName: process.env.TABLE_NAME ?? 'hawk-main',
  rateLimitTableName: process.env.RATE_LIMIT_TABLE_NAME ?? 'hawk-rate-limit',
  assetsBucket: process.env.ASSETS_BUCKET ?? 'hawk-assets',
  /** Set only locally: DynamoDB Local's URL. */
  dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
  /** Set only locally: the DynamoDB Local holding the rate-limit table (`npm start`: a second one, in memory). */
  rateLimitDynamodbEndpoint: process.env.RATE_LIMIT_DYNAMODB_ENDPOINT || process.env.DYNAMODB_ENDPOINT || undefined,
  /** Set only locally: the local server's URL, which fronts s3rver (scripts/local/s3-proxy.ts). */
  s3Endpoint: process.env.S3_ENDPOINT || undefined,
  /** Set only locally: the credentials the local S3 front door checks signatures with (DATA_DIR/local-s3.key). */
  localS3Credentials: process.env.LOCAL_S3_SECRET_ACCESS_KEY
    ? {
        accessKeyId: process.env.LOCAL_S3_ACCESS_KEY_ID ?? 'hawk-local',
        secretAccessKey: process.env.LOCAL_S3_SECRET_ACCESS_KEY,
      }
    : undefined,
  /** Locally: a file under DATA_DIR holding the JWT signing secret. */
  signingKeyFile: process.env.SIGNING_KEY_FILE || undefined,
  /** On AWS: the Secrets Manager secret holding the JWT signing secret. */
  signingSecretArn: process.env.SIGNING_SECRET_ARN || undefined,
  /** The 32-byte key (base64url) integration secrets are sealed with (shared/secrets/sealing.ts): locally DATA_DIR/integrations.key. */
  integrationKeyFile: process.env.INTEGRATION_KEY_FILE || undefined,
  /** On AWS: the KMS key that wraps the data keys integration secrets are sealed with (shared/secrets/sealing.ts). */
  integrationKmsKeyArn: process.env.INTEGRATION_KMS_KEY_ARN || undefined,
  /** Set only by the sealing test: a KMS endpoint on loopback (test/unit/kms-peer.ts). */
  kmsEndpoint: process.env.KMS_ENDPOINT || undefined,
  /** On AWS: the SQS queue webhook deliveries go through (docs/WEBHOOKS.md, Delivery). */
  webhookQueueUrl: process.env.WEBHOOK_QUEUE_URL || undefined,
  rateLimitPerMinute: positiveInt('RATE_LIMIT_PER_MINUTE', 180),
  /** Login attempts per API key (guessing a given key) ... */
  loginRateLimitPerMinute: positiveInt('LOGIN_RATE_LIMIT_PER_MINUTE', 30),
  /** ... and per source address (guessing many keys from one place). */
  loginSourceRateLimitPerMinute: positiveInt('LOGIN_SOURCE_RATE_LIMIT_PER_MINUTE', 180),
  tokenLifetimeSeconds: positiveInt('TOKEN_LIFETIME_SECONDS', 30 * 60),
  /** A scanner agent whose last heartbeat is older than this reads OFFLINE, and its run ends in ERROR. */
  perchOfflineAfterSeconds: positiveInt('PERCH_OFFLINE_AFTER_SECONDS', 60),
  /**
   * How long a process answers an agent's polls from its memory of the organization, the membership and the device
   * (docs/HOSTED-SCANS.md, Idle agents): a revoked key, a removed member or a deleted device is refused within it.
   */
  perchPollMemorySeconds: positiveInt('PERCH_POLL_MEMORY_SECONDS', 60),
  /**
   * The wake channel agents connect to (docs/HOSTED-SCANS.md, Idle agents): on AWS the WebSocket API's stage URL,
   * locally the local server's /api/v1/perch/wake; unset: agents long-poll.
   */
  wakeChannelUrl: process.env.WAKE_CHANNEL_URL || undefined,
  /** Where wakes are posted to the channel's connections (its @connections management API); unset: no posts. */
  wakeEndpoint: process.env.WAKE_ENDPOINT || undefined,
  /** How often a waiting poll looks at the organization's queue again (between in-process wake-ups). */
  perchPollIntervalMs: positiveInt('PERCH_POLL_INTERVAL_MS', 5000),
  /** A run's longest duration; the agent stops the engine by then. */
  perchMaxScanSeconds: positiveInt('PERCH_MAX_SCAN_SECONDS', 3600),
  /** Hosted scans an organization runs at once; more wait in its queue (an operator may set another limit per organization). */
  perchMaxRunningScans: positiveInt('PERCH_MAX_RUNNING_SCANS', 5),
  presignedUrlSeconds: positiveInt('PRESIGNED_URL_SECONDS', 300),
  /**
   * The dashboard's address, for links in webhook and chat messages and tracker tickets (unset: links are paths and
   * chat messages have no Open button). The local stack sets its own; on AWS, the stack's `publicUrl` context.
   */
  publicUrl: process.env.PUBLIC_URL?.replace(/\/+$/, '') || undefined,
  /** A webhook delivery's whole exchange (connect, send, answer) takes at most this (docs/WEBHOOKS.md, Delivery). */
  webhookTimeoutMs: positiveInt('WEBHOOK_TIMEOUT_MS', 10_000),
  /** Attempts of a delivery before it is dead (SQS's maxReceiveCount on AWS); unset: shared/delivery/queue.ts says. */
  webhookMaxAttempts: optionalPositiveInt('WEBHOOK_MAX_ATTEMPTS'),
  /** The first retry's delay; each further one doubles it, at most 15 minutes. */
  webhookRetryBaseMs: positiveInt('WEBHOOK_RETRY_BASE_MS', 30_000),
  /** Set only on AWS: the ECS Fargate runner of hosted scans. Locally the embedded agent takes the runs. */
  scanRunner: scanRunner(),
  /** Set only on AWS, for the function ECS's task state changes feed (shared/perch/runner-stops.ts). */
  runnerTasks: runnerTasks(),
  /** Set only on AWS: EventBridge Scheduler runs the scan schedules. Locally `npm start`'s embedded scheduler does. */
  scheduler: scheduler(),
  /** How often `npm start`'s embedded scheduler looks for due schedules (scripts/local/schedules.ts). */
  scheduleTickMs: positiveInt('SCHEDULE_TICK_MS', 5000),
};
