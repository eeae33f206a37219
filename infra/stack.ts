import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { CfnOutput, Duration, NestedStack, RemovalPolicy, Stack, Stage, type StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { AttributeType, Billing, ProjectionType, TableV2, type Attribute } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Architecture, EventSourceMapping, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Match, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { LogLevel, NodejsFunction, OutputFormat, type ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  WebSocketApi,
  type WebSocketRouteIntegration,
  WebSocketRoute,
  WebSocketStage,
} from 'aws-cdk-lib/aws-apigatewayv2';
import {
  HttpLambdaIntegration,
  WebSocketLambdaIntegration,
  WebSocketMockIntegration,
} from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnRole, ManagedPolicy, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Asset } from 'aws-cdk-lib/aws-s3-assets';
import type { FargateTaskDefinition } from 'aws-cdk-lib/aws-ecs';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { routes } from '../shared/routes.ts';
import { apiGatewayPaths, handlerFile, type Route } from '../shared/http/route.ts';
import { mainTable, rateLimitTable, type KeyAttribute, type TableDefinition } from '../shared/db/tables.ts';
import { declaredTable, MAIN_TABLE_INDEXES_CONTEXT } from './index-steps.ts';
import { declaresOperationRoutes, OPERATION_ROUTES_CONTEXT } from './route-move.ts';
import {
  analyzeBundle,
  type AccessGrant,
  type CodeAccess,
  type KmsKeyId,
  type QueueId,
  type SecretId,
} from './code-access.ts';
import { functionBundleAliases } from './proto-descriptors.ts';
import { FUNCTION_BUNDLE } from './bundling.ts';
import { PEER_ATTEMPTS } from '../shared/db/retry.ts';
import { RISK_EXPIRY_CHECK_MINUTES, OVERDUE_CHECK_MINUTES, STOPPED_WRITES_SWEEP_MINUTES } from '../shared/limits.ts';
import { ScanRunner } from './scan-runner.ts';
import { SERVICE_DESCRIPTION, SERVICE_FILES, SERVICE_PATHS } from '../shared/service/pages.ts';
import { PUBLIC_URL_CONTEXT, publicUrlEnvironment } from './public-url.ts';

const attribute = (key: KeyAttribute): Attribute => ({
  name: key.name,
  type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER,
});

/** A table of the stack from its definition (shared/db/tables.ts). */
export function table(scope: Construct, definition: TableDefinition, pointInTimeRecovery: boolean): TableV2 {
  return new TableV2(scope, definition.id, {
    partitionKey: attribute(definition.partitionKey),
    sortKey: definition.sortKey && attribute(definition.sortKey),
    billing: Billing.onDemand(),
    timeToLiveAttribute: definition.timeToLiveAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: pointInTimeRecovery },
    globalSecondaryIndexes: definition.globalSecondaryIndexes.map((index) => ({
      indexName: index.indexName,
      partitionKey: attribute(index.partitionKey),
      sortKey: attribute(index.sortKey),
      ...(index.include ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: index.include } : {}),
    })),
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/** The bundle CDK staged for a function (esbuild's output), or undefined when this synth skips bundling (`cdk ls`). */
export function bundleOf(fn: NodejsFunction): string | undefined {
  const asset = fn.node.tryFindChild('Code') as Asset | undefined;
  const file = asset && join(Stage.of(fn)!.outdir, asset.assetPath, FUNCTION_BUNDLE.file);
  return file && existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

interface Storage {
  tables: Record<TableDefinition['id'], TableV2>;
  assets: Bucket;
  secrets: Record<SecretId, Secret>;
  kmsKeys: Record<KmsKeyId, Key>;
  queues: Record<QueueId, Queue>;
  runner: ScanRunner;
  /** Scan schedules in EventBridge Scheduler (shared/schedules/clock.ts): their group, target and invoking role. */
  schedules: ScanSchedules;
  /** The agents' wake channel (docs/HOSTED-SCANS.md, Idle agents): its WebSocket API and stage. */
  wake: { api: WebSocketApi; stage: WebSocketStage };
}

/** The wake channel's connections, which a wake posts to or closes (shared/perch/wake.ts), by the call's method. */
const wakeConnectionsArn = ({ api, stage }: Storage['wake'], method: string) =>
  Stack.of(api).formatArn({
    service: 'execute-api',
    resource: api.apiId,
    resourceName: `${stage.stageName}/${method}/@connections/*`,
  });

/** Where scan schedules' EventBridge schedules live, what they invoke, and with which role; the target comes later. */
interface ScanSchedules {
  group: ScheduleGroup;
  role: Role;
  target?: IFunction;
}

/** The EventBridge schedules of scan schedules: in the stack's group, named by shared/schedules/clock.ts. */
const scanScheduleArns = (schedules: ScanSchedules) =>
  Stack.of(schedules.group).formatArn({
    service: 'scheduler',
    resource: 'schedule',
    resourceName: `${schedules.group.scheduleGroupName}/hawk-scan-*`,
  });

/** Functions that create or update scan schedules give EventBridge the target and its role (passing the role). */
const createsSchedules = (grant: AccessGrant) =>
  grant.service === 'scheduler' && grant.actions.some((a) => a !== 'DeleteSchedule');

/** A function's code access (infra/code-access.ts); a bundle it refuses names the function's source in the error. */
function accessOf(bundle: string, source: string): CodeAccess {
  try {
    return analyzeBundle(bundle);
  } catch (error) {
    throw new Error(`${source}: ${(error as Error).message}`, { cause: error });
  }
}

/** The IAM statements of each grant the function's code needs (infra/code-access.ts); nothing else. */
function statementsFor(grants: AccessGrant[], storage: Storage): PolicyStatement[] {
  return grants.flatMap((grant) => {
    switch (grant.service) {
      case 'dynamodb': {
        const table = storage.tables[grant.table];
        return [
          new PolicyStatement({
            actions: grant.actions.map((a) => `dynamodb:${a}`),
            resources: [grant.onIndexes ? `${table.tableArn}/index/*` : table.tableArn],
          }),
        ];
      }
      case 's3':
        return [
          new PolicyStatement({
            actions: [`s3:${grant.action}`],
            resources: grant.keyPatterns.map((key) => storage.assets.arnForObjects(key)),
          }),
        ];
      case 's3-list':
        return [
          new PolicyStatement({
            actions: ['s3:ListBucket'],
            resources: [storage.assets.bucketArn],
            conditions: { StringLike: { 's3:prefix': grant.prefixPatterns } },
          }),
        ];
      case 'secretsmanager':
        return [
          new PolicyStatement({
            actions: grant.actions.map((a) => `secretsmanager:${a}`),
            resources: [storage.secrets[grant.secret].secretArn],
          }),
        ];
      case 'kms':
        return [
          new PolicyStatement({
            actions: grant.actions.map((a) => `kms:${a}`),
            resources: [storage.kmsKeys[grant.key].keyArn],
          }),
        ];
      case 'sqs':
        return [
          new PolicyStatement({
            actions: grant.actions.map((a) => `sqs:${a}`),
            resources: [storage.queues[grant.queue].queueArn],
          }),
        ];
      case 'ecs': {
        // The runner's task definition (any revision) in its cluster, and passing the task's two roles to ECS.
        const { cluster, taskDefinition } = storage.runner;
        return [
          new PolicyStatement({
            actions: grant.actions.map((a) => `ecs:${a}`),
            resources: [taskDefinitionFamilyArn(taskDefinition)],
            conditions: { ArnEquals: { 'ecs:cluster': cluster.clusterArn } },
          }),
          new PolicyStatement({
            actions: ['iam:PassRole'],
            resources: [taskDefinition.taskRole.roleArn, taskDefinition.obtainExecutionRole().roleArn],
            conditions: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
          }),
        ];
      }
      case 'scheduler':
        // The stack's scan schedules only; creating or updating one passes the role it invokes its target with.
        return [
          new PolicyStatement({
            actions: grant.actions.map((a) => `scheduler:${a}`),
            resources: [scanScheduleArns(storage.schedules)],
          }),
          ...(createsSchedules(grant)
            ? [
                new PolicyStatement({
                  actions: ['iam:PassRole'],
                  resources: [storage.schedules.role.roleArn],
                  conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
                }),
              ]
            : []),
        ];
      case 'execute-api':
        return [
          new PolicyStatement({
            actions: grant.actions.map((a) => `execute-api:${a}`),
            resources: grant.methods.map((method) => wakeConnectionsArn(storage.wake, method)),
          }),
        ];
    }
  });
}

/** The webhook relay's and consumer's timeout: a batch of deliveries, each bounded by WEBHOOK_TIMEOUT_MS (10 s). */
const DELIVERY_TIMEOUT_SECONDS = 60;
export const WEBHOOK_RELAY_DESCRIPTION = 'hawk-api: relays the webhook outbox to the delivery queue (every minute)';
export const WEBHOOK_DELIVERY_DESCRIPTION = 'hawk-api: sends webhook deliveries from the delivery queue';
export const STOPPED_WRITES_SWEEP_DESCRIPTION = `hawk-api: sweeps what stopped imports and scan completions left (every ${STOPPED_WRITES_SWEEP_MINUTES} minutes)`;
export const RISK_EXPIRY_DESCRIPTION =
  'hawk-api: makes findings whose risk acceptance expired untriaged again (every minute)';
export const OVERDUE_CHECK_DESCRIPTION =
  'hawk-api: records findingOverdue for findings past their due date (every minute)';
export const SCHEDULED_SCAN_DESCRIPTION =
  "hawk-api: starts a scan schedule's hosted scan when it is due (EventBridge Scheduler)";
/** The wake channel's stage: messages and connects per second, all connections together, and its burst. */
export const WAKE_STAGE_RATE_LIMIT = 100;
export const WAKE_STAGE_BURST_LIMIT = 200;
export const WAKE_CONNECT_DESCRIPTION = "hawk-api: opens an agent's wake channel (WebSocket $connect)";
export const WAKE_DISCONNECT_DESCRIPTION = "hawk-api: closes an agent's wake channel (WebSocket $disconnect)";
export const RUNNER_STOPPED_DESCRIPTION =
  'hawk-api: ends the hosted scan of a runner task ECS stopped (ECS task state changes)';

/** `arn:...:task-definition/<family>:*`: RunTask is authorized on the revision it runs, the latest one. */
const taskDefinitionFamilyArn = (taskDefinition: FargateTaskDefinition) =>
  Stack.of(taskDefinition).formatArn({
    service: 'ecs',
    resource: 'task-definition',
    resourceName: `${taskDefinition.family}:*`,
  });

/** A readable, unique construct id from an operationId: getUser -> GetUserFunction. */
const functionId = (route: Route) =>
  `${route.operationId.charAt(0).toUpperCase()}${route.operationId.slice(1)}Function`;

/**
 * The nested stack that holds an operation: one per route-table tag (the public API's section: Applications, Scan
 * Results, ...), named after it: 'Scan Results' -> ScanResultsOperations.
 */
export const operationsStackId = (route: Route) =>
  `${route.tag
    .split(/\W+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Operations`;

export class HawkApiStack extends Stack {
  /** The HTTP API, which the dashboard's CloudFront distribution (infra/web.ts) forwards /api/* to. */
  readonly api: HttpApi;
  /** What each function's bundle uses, by construct id: the source of its IAM grants (empty when bundling is skipped). */
  readonly access = new Map<string, CodeAccess>();

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    // While an older stack is upgraded, only some of the indexes (infra/index-steps.ts).
    const main = table(this, declaredTable(mainTable, this.node.tryGetContext(MAIN_TABLE_INDEXES_CONTEXT)), true);
    const rateLimit = table(this, rateLimitTable, false);
    const assets = new Bucket(this, 'AssetsBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const signingSecret = new Secret(this, 'JwtSigningSecret', {
      description: 'HS256 key that signs the API access tokens',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });

    // Wraps the data keys integration secrets (webhook secrets and URLs, tracker tokens, SSO client secrets) are
    // sealed with (shared/secrets/sealing.ts); kept when the stack goes, or every sealed value would be lost.
    const integrationKey = new Key(this, 'IntegrationKey', {
      description: 'hawk-api: wraps the data keys integration secrets are sealed with',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Webhook deliveries (docs/WEBHOOKS.md, Delivery): a message per delivery, received again after its backoff (the
    // consumer sets its visibility), moved to the dead letters once received WEBHOOK_MAX_ATTEMPTS times. Visible
    // again after six times the consumer's timeout when a consumer dies mid-batch, as AWS advises for Lambda.
    const deadWebhookDeliveries = new Queue(this, 'WebhookDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    const webhookQueue = new Queue(this, 'WebhookQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(6 * DELIVERY_TIMEOUT_SECONDS),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: deadWebhookDeliveries, maxReceiveCount: PEER_ATTEMPTS },
    });

    const api = new HttpApi(this, 'HttpApi', { description: 'hawk-api: the public StackHawk API, self-hosted' });
    this.api = api;
    // Hosted scans' ECS Fargate runner (infra/scan-runner.ts): a function whose code launches it gets its settings.
    const runner = new ScanRunner(this, 'ScanRunner');
    // Scan schedules (docs/HOSTED-SCANS.md, Schedules): one EventBridge schedule per entry, in this group, invoking
    // the function below with this role.
    const schedules: ScanSchedules = {
      group: new ScheduleGroup(this, 'ScanScheduleGroup', { removalPolicy: RemovalPolicy.DESTROY }),
      role: new Role(this, 'ScanScheduleInvokeRole', {
        assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
          conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
        }),
        description: 'hawk-api: EventBridge Scheduler invokes the scheduled scan function with it',
      }),
    };

    // The agents' wake channel (docs/HOSTED-SCANS.md, Idle agents): its routes and functions come below.
    const wakeApi = new WebSocketApi(this, 'WakeChannel', {
      description: "hawk-api: idle scanner agents' wake channel",
    });
    const wakeStage = new WebSocketStage(this, 'WakeChannelStage', {
      webSocketApi: wakeApi,
      stageName: 'wake',
      autoDeploy: true,
      // Bounds what connections can send (each agent: $connect, then a ping every 4 minutes); an agent refused a
      // connect long-polls and tries again 300 s later.
      throttle: { rateLimit: WAKE_STAGE_RATE_LIMIT, burstLimit: WAKE_STAGE_BURST_LIMIT },
    });

    const storage: Storage = {
      tables: { MainTable: main, RateLimitTable: rateLimit },
      assets,
      secrets: { JwtSigningSecret: signingSecret },
      kmsKeys: { IntegrationKey: integrationKey },
      queues: { WebhookQueue: webhookQueue },
      runner,
      schedules,
      wake: { api: wakeApi, stage: wakeStage },
    };
    const paths = apiGatewayPaths(routes);
    const publicUrl = publicUrlEnvironment(this.node.tryGetContext(PUBLIC_URL_CONTEXT));

    /** One function, granted what its bundle uses (infra/code-access.ts): a new route or SDK call gets its grant. */
    // Each function's protobuf descriptor, beside the assembly (infra/proto-descriptors.ts).
    // Absolute: `cdk synth` gives a relative outdir (cdk.out), which esbuild's --alias would take for a package name.
    const descriptors = resolve(Stage.of(this)!.outdir, 'descriptors');
    const lambda = (
      scope: Construct,
      id: string,
      file: string,
      description: string,
      options: {
        afterBundling?: ICommandHooks['afterBundling'];
        environment?: Record<string, string>;
        timeout?: Duration;
      } = {},
    ) => {
      const { afterBundling } = options;
      const entry = new URL(`../functions/${file}.ts`, import.meta.url).pathname;
      // The function's grants go inline in its role (the role's Policies), not in an AWS::IAM::Policy of their own:
      // one resource per function fewer, against CloudFormation's 500 resources per stack.
      const role = new Role(scope, `${id}ServiceRole`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')],
      });
      const fn = new NodejsFunction(scope, id, {
        entry,
        role,
        handler: 'handler',
        runtime: Runtime.NODEJS_22_X,
        architecture: Architecture.ARM_64,
        memorySize: 512,
        timeout: options.timeout ?? Duration.seconds(29),
        logGroup: new LogGroup(scope, `${id}Logs`, {
          retention: RetentionDays.ONE_MONTH,
          removalPolicy: RemovalPolicy.DESTROY,
        }),
        description,
        environment: {
          TABLE_NAME: main.tableName,
          RATE_LIMIT_TABLE_NAME: rateLimit.tableName,
          ASSETS_BUCKET: assets.bucketName,
          SIGNING_SECRET_ARN: signingSecret.secretArn,
          INTEGRATION_KMS_KEY_ARN: integrationKey.keyArn,
          NODE_OPTIONS: '--enable-source-maps',
          ...publicUrl,
          ...options.environment,
        },
        bundling: {
          // infra/bundling.ts: CommonJS (the SDK loaded with require), @aws-sdk/* left to the runtime.
          minify: true,
          sourceMap: true,
          format: OutputFormat.CJS,
          target: FUNCTION_BUNDLE.target,
          logLevel: LogLevel.ERROR, // esbuild's per-bundle size summary is noise on every synth
          mainFields: [...FUNCTION_BUNDLE.mainFields],
          externalModules: [...FUNCTION_BUNDLE.external],
          define: FUNCTION_BUNDLE.define,
          banner: FUNCTION_BUNDLE.banner,
          // Only the protobuf messages this function's code names, and no `long` (infra/proto-descriptors.ts).
          esbuildArgs: {
            ...Object.fromEntries(
              Object.entries(functionBundleAliases(entry, descriptors, id)).map(([name, path]) => [
                `--alias:${name}`,
                path,
              ]),
            ),
            ...Object.fromEntries(
              Object.entries(FUNCTION_BUNDLE.supported).map(([feature, on]) => [`--supported:${feature}`, String(on)]),
            ),
          },
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (inputDir, outputDir) => [
              `echo '${FUNCTION_BUNDLE.packageJson.trim()}' > "${join(outputDir, 'package.json')}"`,
              ...(afterBundling?.(inputDir, outputDir) ?? []),
            ],
          },
        },
      });
      const bundle = bundleOf(fn);
      if (bundle) {
        const access = accessOf(bundle, `functions/${file}.ts`);
        this.access.set(id, access);
        const statements = statementsFor(access.grants, storage);
        if (statements.length)
          (role.node.defaultChild as CfnRole).policies = [
            { policyName: 'code-access', policyDocument: new PolicyDocument({ statements }) },
          ];
        // A function that queues deliveries itself (testWebhook, redeliverWebhookDelivery) needs the queue's URL.
        if (access.grants.some((grant) => grant.service === 'sqs'))
          fn.addEnvironment('WEBHOOK_QUEUE_URL', storage.queues.WebhookQueue.queueUrl);
        if (access.grants.some((grant) => grant.service === 'ecs'))
          for (const [name, value] of Object.entries(runner.environment(api.apiEndpoint)))
            fn.addEnvironment(name, value);
        if (access.grants.some((grant) => grant.service === 'execute-api'))
          fn.addEnvironment('WAKE_ENDPOINT', wakeStage.callbackUrl);
        // The registration tells agents where the wake channel is.
        if (bundle.includes('.wakeChannelUrl')) fn.addEnvironment('WAKE_CHANNEL_URL', wakeStage.url);
        if (access.grants.some((grant) => grant.service === 'scheduler'))
          fn.addEnvironment('SCAN_SCHEDULE_GROUP', schedules.group.scheduleGroupName);
        if (access.grants.some(createsSchedules)) {
          fn.addEnvironment('SCAN_SCHEDULE_TARGET_ARN', schedules.target!.functionArn);
          fn.addEnvironment('SCAN_SCHEDULE_ROLE_ARN', schedules.role.roleArn);
        }
      }
      return fn;
    };

    // A scan schedule's due time (docs/HOSTED-SCANS.md, Schedules), with the other scheduled and event-driven
    // functions (below), made before the operations that create schedules invoking it. EventBridge Scheduler retries it twice within the minute.
    const delivery = new NestedStack(this, 'WebhookDelivery', {
      description: 'hawk-api: webhook delivery, scheduled and event-driven functions',
    });
    schedules.target = lambda(delivery, 'RunScheduledScanFunction', 'run-scheduled-scan', SCHEDULED_SCAN_DESCRIPTION, {
      timeout: Duration.seconds(60),
    });
    schedules.role.addToPolicy(
      new PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [schedules.target.functionArn, `${schedules.target.functionArn}:*`],
      }),
    );

    // The wake channel's $connect and $disconnect, and its keepalive answered by API Gateway alone (a MOCK
    // integration: no function, no table), beside the other event-driven functions.
    const wakeRoutes: [string, WebSocketRouteIntegration][] = [
      [
        '$connect',
        new WebSocketLambdaIntegration(
          'WakeConnectIntegration',
          lambda(delivery, 'ConnectWakeChannelFunction', 'connect-wake-channel', WAKE_CONNECT_DESCRIPTION),
        ),
      ],
      [
        '$disconnect',
        new WebSocketLambdaIntegration(
          'WakeDisconnectIntegration',
          lambda(delivery, 'DisconnectWakeChannelFunction', 'disconnect-wake-channel', WAKE_DISCONNECT_DESCRIPTION),
        ),
      ],
      ['ping', new WebSocketMockIntegration('WakePingIntegration')],
    ];
    // While an older stack is upgraded, once, none of the operations' routes (infra/route-move.ts), nor these.
    const withRoutes = declaresOperationRoutes(this.node.tryGetContext(OPERATION_ROUTES_CONTEXT));
    for (const [routeKey, integration] of withRoutes ? wakeRoutes : [])
      new WebSocketRoute(delivery, `Wake${routeKey.replace('$', '')}Route`, {
        webSocketApi: wakeApi,
        routeKey,
        integration,
      });

    // CloudFormation takes at most 500 resources per stack, and each operation costs six (function, role, log group,
    // integration, route, permission). So the operations live in nested stacks, one per tag of the route table
    // (operationsStackId), each holding its operations' functions and API routes; this stack keeps the storage, the
    // HTTP API and the service function, and passes the nested stacks what they reference (CDK makes the parameters).
    // While an older stack is upgraded, once, none of the operations' routes (infra/route-move.ts).
    const operationStacks = new Map<string, { stack: NestedStack; routes: Construct }>();
    for (const route of routes) {
      const stackId = operationsStackId(route);
      if (!operationStacks.has(stackId)) {
        const stack = new NestedStack(this, stackId, { description: `hawk-api: the ${route.tag} operations` });
        // The routes under an `HttpApi` scope, where api.addRoutes put them, so their logical ids stay as they were.
        operationStacks.set(stackId, { stack, routes: new Construct(stack, 'HttpApi') });
      }
      const scope = operationStacks.get(stackId)!;
      const id = functionId(route);
      const fn = lambda(scope.stack, id, handlerFile(route), `${route.method} ${route.path}`);
      if (!withRoutes) continue;
      const path = paths.get(route)!;
      // Not api.addRoutes, which would put the route, its integration and the permission in the API's stack.
      new HttpRoute(scope.routes, `${route.method}${path}`, {
        httpApi: api,
        routeKey: HttpRouteKey.with(path, HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${id}Integration`, fn),
      });
    }

    // Health check, OpenAPI description and reference docs (shared/service/pages.ts): their files ship in the bundle.
    const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    const service = lambda(this, 'ServiceFunction', 'service', SERVICE_DESCRIPTION, {
      afterBundling: (inputDir, outputDir) => [
        `cp "${join(inputDir, SERVICE_FILES.openapi)}" "${outputDir}/"`,
        `cp "${join(swaggerDir, SERVICE_FILES.css)}" "${join(swaggerDir, SERVICE_FILES.script)}" "${outputDir}/"`,
      ],
    });
    const serviceIntegration = new HttpLambdaIntegration('ServiceIntegration', service);
    for (const path of SERVICE_PATHS)
      api.addRoutes({ path, methods: [HttpMethod.GET], integration: serviceIntegration });

    // Webhook delivery (docs/WEBHOOKS.md, Delivery), in the nested stack made above: the relay, run every minute,
    // hands the outbox's events to the queue; the consumer, fed by the queue, sends them.
    // The consumer's count of attempts is the queue's maxReceiveCount.
    const queueEnvironment = {
      WEBHOOK_QUEUE_URL: webhookQueue.queueUrl,
      WEBHOOK_MAX_ATTEMPTS: String(PEER_ATTEMPTS),
    };
    const relay = lambda(delivery, 'RelayWebhooksFunction', 'relay-webhooks', WEBHOOK_RELAY_DESCRIPTION, {
      environment: queueEnvironment,
      timeout: Duration.seconds(DELIVERY_TIMEOUT_SECONDS),
    });
    new Rule(delivery, 'RelayWebhooksSchedule', {
      description: 'hawk-api: relay the webhook outbox to the delivery queue',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(relay, { retryAttempts: 0 })], // the next minute's run is the retry
    });
    // Risk acceptances that expire (docs/GOVERNANCE.md): the check runs on the same kind of schedule, beside the relay
    // that hands on the events it records.
    const expiry = lambda(
      delivery,
      'ExpireRiskAcceptancesFunction',
      'expire-risk-acceptances',
      RISK_EXPIRY_DESCRIPTION,
      {
        timeout: Duration.seconds(DELIVERY_TIMEOUT_SECONDS),
      },
    );
    new Rule(delivery, 'ExpireRiskAcceptancesSchedule', {
      description: 'hawk-api: expire risk acceptances whose time has come',
      schedule: Schedule.rate(Duration.minutes(RISK_EXPIRY_CHECK_MINUTES)),
      targets: [new LambdaFunction(expiry, { retryAttempts: 0 })], // the next run is the retry
    });
    // Overdue findings (docs/GOVERNANCE.md): the same kind of check, beside the relay that hands on its events.
    const overdue = lambda(
      delivery,
      'NotifyOverdueFindingsFunction',
      'notify-overdue-findings',
      OVERDUE_CHECK_DESCRIPTION,
      { timeout: Duration.seconds(DELIVERY_TIMEOUT_SECONDS) },
    );
    new Rule(delivery, 'NotifyOverdueFindingsSchedule', {
      description: 'hawk-api: record findingOverdue for findings past their due date',
      schedule: Schedule.rate(Duration.minutes(OVERDUE_CHECK_MINUTES)),
      targets: [new LambdaFunction(overdue, { retryAttempts: 0 })], // the next run is the retry
    });
    const consumer = lambda(delivery, 'DeliverWebhooksFunction', 'deliver-webhooks', WEBHOOK_DELIVERY_DESCRIPTION, {
      environment: queueEnvironment,
      timeout: Duration.seconds(DELIVERY_TIMEOUT_SECONDS),
    });
    // The event source polls the queue with the consumer's role: its receive, delete and attribute reads are granted
    // inline here, beside what the bundle itself calls (CDK's SqsEventSource would add a policy of its own).
    new EventSourceMapping(delivery, 'DeliverWebhooksSource', {
      target: consumer,
      eventSourceArn: webhookQueue.queueArn,
      batchSize: 10,
      reportBatchItemFailures: true,
    });
    const consumerRole = consumer.role!.node.defaultChild as CfnRole;
    consumerRole.policies = [
      ...((consumerRole.policies as CfnRole.PolicyProperty[] | undefined) ?? []),
      {
        policyName: 'queue-event-source',
        policyDocument: new PolicyDocument({
          statements: [
            new PolicyStatement({
              actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
              resources: [webhookQueue.queueArn],
            }),
          ],
        }),
      },
    ];

    // The sweep of what stopped imports and scan completions left in applications no later request visits
    // (docs/DATA-MODEL.md, Findings, Unpublished writes), beside the other scheduled functions.
    const sweep = lambda(
      delivery,
      'SweepStoppedWritesFunction',
      'sweep-stopped-writes',
      STOPPED_WRITES_SWEEP_DESCRIPTION,
      {
        timeout: Duration.seconds(60),
      },
    );
    new Rule(delivery, 'SweepStoppedWritesSchedule', {
      description: 'hawk-api: sweep what stopped imports and scan completions left',
      schedule: Schedule.rate(Duration.minutes(STOPPED_WRITES_SWEEP_MINUTES)),
      targets: [new LambdaFunction(sweep, { retryAttempts: 0 })], // the next run is the retry
    });

    // Hosted scans (docs/HOSTED-SCANS.md, "Where scans run"): ECS's event of a runner task that stopped ends the run
    // it carried at once, with ECS's reason. Only the runner's stopped tasks reach the function, which checks them
    // again; retried twice at most, harmlessly (a run that ended is left as it is), and the heartbeat window remains.
    const stoppedRunner = lambda(
      delivery,
      'EndStoppedRunnerScansFunction',
      'end-stopped-runner-scans',
      RUNNER_STOPPED_DESCRIPTION,
      {
        environment: {
          SCAN_RUNNER_CLUSTER: runner.cluster.clusterArn,
          SCAN_RUNNER_TASK_FAMILY: runner.taskDefinition.family,
        },
        timeout: Duration.seconds(60),
      },
    );
    new Rule(delivery, 'EndStoppedRunnerScansRule', {
      description: 'hawk-api: end the hosted scan of a runner task that stopped',
      eventPattern: {
        source: ['aws.ecs'],
        detailType: ['ECS Task State Change'],
        detail: {
          clusterArn: [runner.cluster.clusterArn],
          lastStatus: ['STOPPED'],
          // Any revision of the runner's task definition: a task launched before a deploy may stop after it.
          taskDefinitionArn: Match.prefix(
            this.formatArn({
              service: 'ecs',
              resource: 'task-definition',
              resourceName: `${runner.taskDefinition.family}:`,
            }),
          ),
        },
      },
      targets: [new LambdaFunction(stoppedRunner, { retryAttempts: 2 })],
    });

    new CfnOutput(this, 'ApiUrl', { value: api.apiEndpoint });
    new CfnOutput(this, 'WakeChannelUrl', { value: wakeStage.url });
    new CfnOutput(this, 'TableName', { value: main.tableName });
    new CfnOutput(this, 'AssetsBucketName', { value: assets.bucketName });
    // npm run migrate seals the scan secrets stored configurations' credentials move into (scripts/migrate.ts).
    new CfnOutput(this, 'IntegrationKeyArn', { value: integrationKey.keyArn });
  }
}
