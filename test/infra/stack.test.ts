import { describe, expect, inject, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { RUNNER_CONTAINER } from '../../shared/perch/runner-container.ts';
import { apiGatewayPaths } from '../../shared/http/route.ts';
import { routes } from '../../shared/routes.ts';
import { SERVICE_DESCRIPTION, SERVICE_PATHS } from '../../shared/service/pages.ts';
import { mainTable } from '../../shared/db/tables.ts';
import { readCloudAssembly } from '../synth-setup.ts';
import {
  RUNNER_STOPPED_DESCRIPTION,
  WAKE_CONNECT_DESCRIPTION,
  WAKE_DISCONNECT_DESCRIPTION,
  WAKE_STAGE_BURST_LIMIT,
  WAKE_STAGE_RATE_LIMIT,
  SCHEDULED_SCAN_DESCRIPTION,
  WEBHOOK_DELIVERY_DESCRIPTION,
  WEBHOOK_RELAY_DESCRIPTION,
} from '../../infra/stack.ts';

// The synthesized CloudFormation templates (test/synth-setup.ts; bundling runs esbuild locally, no Docker, no AWS
// credentials): `template` holds the resources of the API stack and of its nested stacks together, `stacks` each one.
const { template: merged, stacks } = readCloudAssembly(inject('cloudAssembly'));
const template = Template.fromJSON(merged);
const resources = (type: string) =>
  Object.values(template.findResources(type)) as { Properties: Record<string, any>; DeletionPolicy?: string }[];
const [parent, ...nested] = stacks;
/** The nested stacks of operations (one per tag); the other one holds webhook delivery and the scheduled functions. */
const isDeliveryStack = (stack: (typeof stacks)[number]) =>
  Object.values(stack.template.Resources).some((r) => r.Type === 'AWS::Lambda::EventSourceMapping');
const operationStacks = nested.filter((stack) => !isDeliveryStack(stack));
const ofType = (stack: (typeof stacks)[number], type: string) =>
  Object.values(stack.template.Resources).filter((r) => r.Type === type);
const routeOf = (fn: { Properties: Record<string, any> }) =>
  routes.find((r) => fn.Properties.Description === `${r.method} ${r.path}`);

describe('CDK stack', () => {
  it("keeps every stack, the API stack and each nested one, within CloudFormation's 500 resources, with room to grow", () => {
    // Each operation costs six: function, role (its grants inline), log group, integration, route, permission. Any
    // stack can take 30 more operations (a new area of the API, or many more in one).
    expect(nested.length).toBeGreaterThan(0);
    for (const { file, template } of stacks)
      expect(Object.keys(template.Resources).length, file).toBeLessThanOrEqual(500 - 6 * 30);
  });

  it('puts each operation (function, role, log group, route, integration, permission) in the nested stack of its tag', () => {
    const tags = new Set<string>();
    expect(operationStacks).toHaveLength(nested.length - 1);
    for (const stack of operationStacks) {
      const fns = ofType(stack, 'AWS::Lambda::Function');
      const own = fns.map(routeOf);
      expect(own, stack.file).not.toContain(undefined);
      const [tag, ...others] = new Set(own.map((r) => r!.tag));
      expect(others, stack.file).toEqual([]);
      expect(tags.has(tag), tag).toBe(false);
      tags.add(tag);
      expect(own.map((r) => r!.operationId).sort()).toEqual(
        routes
          .filter((r) => r.tag === tag)
          .map((r) => r.operationId)
          .sort(),
      );
      const paths = apiGatewayPaths(routes);
      expect(
        ofType(stack, 'AWS::ApiGatewayV2::Route')
          .map((r) => r.Properties.RouteKey)
          .sort(),
      ).toEqual(own.map((r) => `${r!.method} ${paths.get(r!)}`).sort());
      for (const type of [
        'AWS::IAM::Role',
        'AWS::Logs::LogGroup',
        'AWS::ApiGatewayV2::Integration',
        'AWS::Lambda::Permission',
      ])
        expect(ofType(stack, type), `${stack.file} ${type}`).toHaveLength(fns.length);
    }
    expect([...tags].sort()).toEqual([...new Set(routes.map((r) => r.tag))].sort());
    // The API stack keeps the service function (health, docs) and its routes.
    expect(ofType(parent, 'AWS::Lambda::Function').map((fn) => fn.Properties.Description)).toEqual([
      SERVICE_DESCRIPTION,
    ]);
    expect(
      ofType(parent, 'AWS::ApiGatewayV2::Route')
        .map((r) => r.Properties.RouteKey)
        .sort(),
    ).toEqual(SERVICE_PATHS.map((p) => `GET ${p}`).sort());
  });

  it("gives each nested stack every parameter it declares, from the API stack's own resources", () => {
    const declared = Object.values(parent.template.Resources).filter((r) => r.Type === 'AWS::CloudFormation::Stack');
    expect(declared).toHaveLength(nested.length);
    for (const resource of declared) {
      const stack = nested.find((s) => s.file === resource.Metadata!['aws:asset:path'])!;
      const passed = resource.Properties.Parameters as Record<string, unknown>;
      expect(Object.keys(passed).sort(), stack.file).toEqual(Object.keys(stack.template.Parameters ?? {}).sort());
      // What the nested stack references: the API stack's tables, bucket, secret and HTTP API, by Ref or GetAtt.
      for (const value of Object.values(passed))
        expect(Object.keys(parent.template.Resources), JSON.stringify(value)).toContain(
          (value as { Ref?: string; 'Fn::GetAtt'?: string[] }).Ref ??
            (value as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0],
        );
    }
    // So every function reaches the API stack's storage (test/synth-setup.ts replaces each parameter by its value).
    const logicalId = (type: string, name: string) =>
      Object.entries(parent.template.Resources).find(([id, r]) => r.Type === type && id.startsWith(name))![0];
    for (const fn of resources('AWS::Lambda::Function'))
      expect(fn.Properties.Environment.Variables, fn.Properties.Description).toMatchObject({
        TABLE_NAME: { Ref: logicalId('AWS::DynamoDB::GlobalTable', 'MainTable') },
        RATE_LIMIT_TABLE_NAME: { Ref: logicalId('AWS::DynamoDB::GlobalTable', 'RateLimitTable') },
        ASSETS_BUCKET: { Ref: logicalId('AWS::S3::Bucket', 'AssetsBucket') },
        SIGNING_SECRET_ARN: { Ref: logicalId('AWS::SecretsManager::Secret', 'JwtSigningSecret') },
      });
    for (const route of resources('AWS::ApiGatewayV2::Route'))
      expect(route.Properties.ApiId).toEqual({
        Ref: logicalId('AWS::ApiGatewayV2::Api', route.Properties.RouteKey.includes(' ') ? 'HttpApi' : 'WakeChannel'),
      });
  });

  it('has one Node.js 22 function and one HTTP API route per route-table entry, and the service function', () => {
    const functions = resources('AWS::Lambda::Function');
    // And webhook delivery's relay and consumer, the risk acceptance expiry and the overdue check
    // (docs/GOVERNANCE.md), the sweep of stopped writes (docs/DATA-MODEL.md) and the end of stopped runner tasks
    // (docs/HOSTED-SCANS.md) and the start of a scan schedule's runs (docs/HOSTED-SCANS.md, Schedules), and the wake
    // channel's $connect and $disconnect (docs/HOSTED-SCANS.md, Idle agents).
    expect(functions).toHaveLength(routes.length + 10);
    for (const fn of functions) expect(fn.Properties.Runtime).toBe('nodejs22.x');
    const routeKeys = resources('AWS::ApiGatewayV2::Route')
      .map((r) => r.Properties.RouteKey as string)
      .filter((key) => key.includes(' ')) // the HTTP API's (a WebSocket route's key is one word)
      .sort();
    const paths = apiGatewayPaths(routes);
    expect(routeKeys).toEqual(
      [...routes.map((r) => `${r.method} ${paths.get(r)}`), ...SERVICE_PATHS.map((p) => `GET ${p}`)].sort(),
    );
  });

  it('delivers webhooks through an encrypted SQS queue with a dead-letter queue, a consumer fed by it and a relay run every minute', () => {
    const delivery = nested.find(isDeliveryStack)!;
    const queues = Object.entries(parent.template.Resources).filter(([, r]) => r.Type === 'AWS::SQS::Queue');
    const [, queue] = queues.find(([id]) => id.startsWith('WebhookQueue'))!;
    const [deadId] = queues.find(([id]) => id.startsWith('WebhookDeadLetterQueue'))!;
    for (const [, q] of queues) expect(q.Properties.SqsManagedSseEnabled).toBe(true);
    const fns = ofType(delivery, 'AWS::Lambda::Function');
    const consumer = fns.find((fn) => fn.Properties.Description === WEBHOOK_DELIVERY_DESCRIPTION)!;
    const relay = fns.find((fn) => fn.Properties.Description === WEBHOOK_RELAY_DESCRIPTION)!;
    // Dead after the consumer's count of attempts; a consumer that dies mid-batch leaves its messages for 6 timeouts.
    expect(queue.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [deadId, 'Arn'] },
      maxReceiveCount: Number(consumer.Properties.Environment.Variables.WEBHOOK_MAX_ATTEMPTS),
    });
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * consumer.Properties.Timeout);
    const [mapping] = ofType(delivery, 'AWS::Lambda::EventSourceMapping');
    expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(JSON.stringify(mapping.Properties.EventSourceArn)).toMatch(/WebhookQueue\w*Arn/);
    const [rule] = ofType(delivery, 'AWS::Events::Rule');
    expect(rule.Properties.ScheduleExpression).toBe('rate(1 minute)');
    const relayId = Object.entries(delivery.template.Resources).find(([, r]) => r === relay)![0];
    expect(JSON.stringify(rule.Properties.Targets)).toContain(relayId);
    for (const fn of [consumer, relay])
      expect(JSON.stringify(fn.Properties.Environment.Variables.WEBHOOK_QUEUE_URL)).toContain('WebhookQueue');
  });

  it('grants no wildcard IAM actions', () => {
    const documents = [
      ...resources('AWS::IAM::Policy').map((policy) => policy.Properties.PolicyDocument),
      ...resources('AWS::IAM::Role').flatMap((role) =>
        (role.Properties.Policies ?? []).map((p: { PolicyDocument: unknown }) => p.PolicyDocument),
      ),
    ];
    const actions = documents.flatMap((document) =>
      document.Statement.flatMap((s: { Action: string | string[] }) => [s.Action].flat()),
    );
    expect(actions.length).toBeGreaterThan(0);
    for (const action of actions) expect(action, action).not.toMatch(/\*/);
  });

  it('lets no read-only GET operation write the main table', () => {
    const byId = template.findResources('AWS::Lambda::Function');
    const roles = template.findResources('AWS::IAM::Role') as Record<string, any>;
    // The public API has GET operations that change state (toggleAppPlugin): those declare their audit type.
    // login and refreshToken (GETs, as in the public API) record the API key's last use, at most once a minute.
    const recordsKeyUse = new Set(['login', 'refreshToken']);
    // getScanStatus and getScanRunLog end a hosted run whose agent went silent, or that no agent took before its
    // deadline, when they read it: written on read, with no sweeper (docs/HOSTED-SCANS.md, "The agent").
    // getRetest too: a retest whose run ended so reads ERROR (docs/HOSTED-SCANS.md, Retests).
    const settlesRuns = new Set(['getScanStatus', 'getScanRunLog', 'getRetest']);
    // getOrganizationOverview writes back an environment's overdue digest it had to rebuild, in one transaction
    // conditioned on the version it read (docs/GOVERNANCE.md, The overview): a projection that heals on read.
    const healsDigests = new Set(['getOrganizationOverview']);
    // listEnvsV2 writes the fences its deep pages learned (docs/DATA-MODEL.md, List fences): a conditional PutItem.
    const learnsFences = new Set(['listEnvsV2']);
    const transactionWrites = [
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ];
    const reads = routes.filter((r) => r.method === 'GET' && !r.audit);
    expect(reads.length).toBeGreaterThan(20);
    for (const route of reads) {
      const [fnId] = Object.entries(byId).find(
        ([, fn]: [string, any]) => fn.Properties.Description === `${route.method} ${route.path}`,
      )!;
      const roleId = (byId[fnId] as any).Properties.Role['Fn::GetAtt'][0];
      const statements = (roles[roleId].Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement);
      const writes = statements
        .filter((s: any) => JSON.stringify(s.Resource).includes('MainTable'))
        .flatMap((s: any) => [s.Action].flat())
        .filter((a: string) => /Put|Update|Delete|BatchWrite|ConditionCheck/.test(a));
      if (settlesRuns.has(route.operationId)) expect(writes.length, route.operationId).toBeGreaterThan(0);
      else if (learnsFences.has(route.operationId)) expect(writes, route.operationId).toEqual(['dynamodb:PutItem']);
      else if (healsDigests.has(route.operationId))
        expect([...writes].sort(), route.operationId).toEqual(transactionWrites);
      else
        expect(writes, route.operationId).toEqual(recordsKeyUse.has(route.operationId) ? ['dynamodb:UpdateItem'] : []);
    }
  });

  it('keeps the bucket private and encrypted', () => {
    const [bucket] = resources('AWS::S3::Bucket');
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(
      bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault
        .SSEAlgorithm,
    ).toBe('AES256');
    const policies = resources('AWS::S3::BucketPolicy');
    expect(JSON.stringify(policies)).toContain('aws:SecureTransport');
  });

  it('builds the tables from shared/tables.ts: GSIs, TTL and point-in-time recovery', () => {
    const tables = resources('AWS::DynamoDB::GlobalTable');
    const main = tables.find((t) => (t.Properties.GlobalSecondaryIndexes ?? []).length > 0)!;
    expect(main.Properties.GlobalSecondaryIndexes.map((i: any) => i.IndexName)).toEqual(
      mainTable.globalSecondaryIndexes.map((i) => i.indexName),
    );
    // The compact list indexes copy only the list fields; the others whole items.
    expect(
      main.Properties.GlobalSecondaryIndexes.map((i: any) => [
        i.IndexName,
        i.Projection.ProjectionType,
        i.Projection.NonKeyAttributes,
      ]),
    ).toEqual(mainTable.globalSecondaryIndexes.map((i) => [i.indexName, i.include ? 'INCLUDE' : 'ALL', i.include]));
    expect(main.Properties.Replicas[0].PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    for (const table of tables)
      expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
  });

  it('keeps the signing key in Secrets Manager and the integration key in KMS (rotated, kept), never in function configuration', () => {
    expect(resources('AWS::SecretsManager::Secret')).toHaveLength(1);
    const [kmsKey, ...moreKeys] = resources('AWS::KMS::Key');
    expect(moreKeys).toEqual([]);
    expect(kmsKey.Properties.EnableKeyRotation).toBe(true);
    expect(kmsKey.DeletionPolicy).toBe('Retain');
    for (const fn of resources('AWS::Lambda::Function')) {
      expect(Object.keys(fn.Properties.Environment.Variables)).toEqual(
        expect.arrayContaining(['SIGNING_SECRET_ARN', 'INTEGRATION_KMS_KEY_ARN']),
      );
      expect(JSON.stringify(fn.Properties.Environment.Variables)).not.toMatch(
        /SIGNING_KEY|INTEGRATION_KEY_FILE|KMS_ENDPOINT|SecretString/,
      );
    }
  });

  it("runs hosted scans on ECS Fargate: the scanner agent's image from scanner/Dockerfile, a task role without grants, launched by startScan, launchProfileScan and retestFinding alone", () => {
    const [cluster, ...moreClusters] = resources('AWS::ECS::Cluster');
    expect(cluster).toBeDefined();
    expect(moreClusters).toEqual([]);
    const [task, ...moreTasks] = resources('AWS::ECS::TaskDefinition');
    expect(moreTasks).toEqual([]);
    expect(task.Properties).toMatchObject({
      RequiresCompatibilities: ['FARGATE'],
      NetworkMode: 'awsvpc',
      RuntimePlatform: { CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' },
    });
    const [container, ...moreContainers] = task.Properties.ContainerDefinitions;
    expect(moreContainers).toEqual([]);
    expect(container.Name).toBe(RUNNER_CONTAINER);
    expect(container.LogConfiguration.LogDriver).toBe('awslogs');
    // The image is the asset CDK staged from scanner/ (built by cdk deploy): its Dockerfile runs the agent.
    const { dir, stackName } = inject('cloudAssembly');
    const manifest = JSON.parse(readFileSync(join(dir, `${stackName}.assets.json`), 'utf8'));
    const images = Object.entries(manifest.dockerImages ?? {}) as [string, any][];
    expect(images).toHaveLength(1);
    const [hash, image] = images[0];
    expect(JSON.stringify(container.Image)).toContain(hash);
    expect(image.source.platform).toBe('linux/amd64');
    const staged = join(dir, image.source.directory);
    const dockerfile = readFileSync(join(staged, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/apt-get install[^\n]* wapiti/);
    expect(dockerfile).toContain('ENTRYPOINT ["node", "bin/hawk-scanner.mjs"]');
    expect(existsSync(join(staged, 'src', 'commands', 'agent.ts'))).toBe(true);
    expect(existsSync(join(staged, 'node_modules')) || existsSync(join(staged, 'test'))).toBe(false);
    // The agent calls only the service's HTTP API, so its task role holds no grant.
    const roles = template.findResources('AWS::IAM::Role') as Record<string, any>;
    const taskRole = roles[task.Properties.TaskRoleArn['Fn::GetAtt'][0]];
    expect(taskRole.Properties.Policies ?? []).toEqual([]);
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as any[];
    expect(
      policies.filter((p) => JSON.stringify(p.Properties.Roles).includes(task.Properties.TaskRoleArn['Fn::GetAtt'][0])),
    ).toEqual([]);
    // Only the three operations that start a run launch it (a scan, a profile scan: docs/PROFILE-SCANS.md, a retest:
    // docs/HOSTED-SCANS.md, Retests), and the
    // function that starts a schedule's run (docs/HOSTED-SCANS.md, Schedules); they are told where (shared/config.ts,
    // scanRunner).
    const launchers = resources('AWS::Lambda::Function').filter(
      (fn) => 'SCAN_RUNNER_TASK_DEFINITION' in fn.Properties.Environment.Variables,
    );
    expect(launchers.map((fn) => routeOf(fn)?.operationId ?? fn.Properties.Description).sort()).toEqual([
      SCHEDULED_SCAN_DESCRIPTION,
      'launchProfileScan',
      'retestFinding',
      'startScan',
    ]);
    const runTask = Object.values(roles)
      .flatMap((role) => (role.Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement))
      .filter((s: any) => [s.Action].flat().includes('ecs:RunTask'));
    expect(runTask).toHaveLength(4);
    for (const statement of runTask) {
      expect(statement.Condition.ArnEquals['ecs:cluster']).toBeDefined();
      expect(JSON.stringify(statement.Resource)).toMatch(/task-definition\//);
    }
  });

  it('runs scan schedules with EventBridge Scheduler: a group, a role it invokes one function with, and grants that follow the code', () => {
    const delivery = nested.find(isDeliveryStack)!;
    const [groupId] = Object.entries(parent.template.Resources).find(
      ([, r]) => r.Type === 'AWS::Scheduler::ScheduleGroup',
    )!;
    const [roleId, role] = Object.entries(parent.template.Resources).find(([id]) =>
      id.startsWith('ScanScheduleInvokeRole'),
    )!;
    // Only EventBridge Scheduler of this account assumes the role, and it may only invoke the scheduled scan function.
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Action: 'sts:AssumeRole',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      }),
    ]);
    const invoke = Object.values(parent.template.Resources).find(
      (r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(roleId),
    )!;
    const statements = invoke.Properties.PolicyDocument.Statement;
    expect(statements).toHaveLength(1);
    expect(statements[0].Action).toBe('lambda:InvokeFunction');
    expect(JSON.stringify(statements[0].Resource)).toMatch(/RunScheduledScanFunction/);
    const [fnId, fn] = Object.entries(delivery.template.Resources).find(
      ([, r]) => r.Properties?.Description === SCHEDULED_SCAN_DESCRIPTION,
    )!;
    expect(fnId).toMatch(/^RunScheduledScanFunction/);
    expect(fn.Properties.Environment.Variables.SCAN_SCHEDULE_GROUP).toBeDefined();
    // The schedules are made by the operations that change them (and a leftover one is deleted by the function it
    // invokes): each is granted the scheduler's actions its code calls on the group's hawk-scan-* schedules, and
    // passing the invoking role when it creates or updates one; no other function is.
    const passesInvokeRole = (st: any) => JSON.stringify(st.Resource).includes('ScanScheduleInvokeRole');
    const schedulerGrants = resources('AWS::Lambda::Function').flatMap((f) => {
      const roleOf = (merged.Resources as Record<string, any>)[f.Properties.Role['Fn::GetAtt'][0]];
      const own = (roleOf.Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement);
      const actions = own
        .flatMap((st: any) => [st.Action].flat().map((a: string) => ({ a, st })))
        .filter(({ a, st }: any) => a.startsWith('scheduler:') || (a === 'iam:PassRole' && passesInvokeRole(st)))
        .map(({ a }: any) => a);
      return actions.length ? [{ name: routeOf(f)?.operationId ?? f.Properties.Description, actions, own, f }] : [];
    });
    const changes = [
      'iam:PassRole',
      'scheduler:CreateSchedule',
      'scheduler:DeleteSchedule',
      'scheduler:UpdateSchedule',
    ];
    expect(Object.fromEntries(schedulerGrants.map((g) => [g.name, g.actions.sort()]))).toEqual({
      createSchedule: changes,
      updateSchedule: changes,
      deleteSchedule: changes,
      [SCHEDULED_SCAN_DESCRIPTION]: ['scheduler:DeleteSchedule'],
    });
    for (const grant of schedulerGrants) {
      for (const statement of grant.own) {
        const text = JSON.stringify(statement.Resource);
        if ([statement.Action].flat().some((a: string) => a.startsWith('scheduler:')))
          expect(text, grant.name).toMatch(/:schedule\/.*\/hawk-scan-\*/);
        if (statement.Action === 'iam:PassRole' && passesInvokeRole(statement)) {
          expect(text).toMatch(/ScanScheduleInvokeRole/);
          expect(statement.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
        }
      }
      const variables = grant.f.Properties.Environment.Variables;
      expect(JSON.stringify(variables.SCAN_SCHEDULE_GROUP)).toMatch(/ScanScheduleGroup/);
      if (grant.actions.includes('iam:PassRole')) {
        expect(JSON.stringify(variables.SCAN_SCHEDULE_TARGET_ARN)).toMatch(/RunScheduledScanFunction/);
        expect(JSON.stringify(variables.SCAN_SCHEDULE_ROLE_ARN)).toMatch(/ScanScheduleInvokeRole/);
      } else expect(variables.SCAN_SCHEDULE_TARGET_ARN).toBeUndefined();
    }
    expect(groupId).toMatch(/^ScanScheduleGroup/);
  });

  it("ends a stopped runner task's run from ECS's task state changes: a rule on the runner's cluster and family, one function granted what its code calls", () => {
    const delivery = nested.find(isDeliveryStack)!;
    const entries = Object.entries(delivery.template.Resources);
    const [fnId, fn] = entries.find(([, r]) => r.Properties.Description === RUNNER_STOPPED_DESCRIPTION)!;
    const rules = entries.filter(([, r]) => r.Type === 'AWS::Events::Rule' && r.Properties.EventPattern);
    expect(rules).toHaveLength(1);
    const [, rule] = rules[0];
    const pattern = rule.Properties.EventPattern;
    expect(pattern.source).toEqual(['aws.ecs']);
    expect(pattern['detail-type']).toEqual(['ECS Task State Change']);
    expect(pattern.detail.lastStatus).toEqual(['STOPPED']);
    // The cluster's ARN and the family, each passed from the API stack, as the function is told them.
    const [task] = ofType(parent, 'AWS::ECS::TaskDefinition');
    const family = task.Properties.Family;
    expect(family).toMatch(/ScanRunnerTaskDefinition/);
    const variables = fn.Properties.Environment.Variables;
    expect(variables.SCAN_RUNNER_TASK_FAMILY).toBe(family);
    expect(pattern.detail.clusterArn).toEqual([variables.SCAN_RUNNER_CLUSTER]);
    expect(JSON.stringify(variables.SCAN_RUNNER_CLUSTER)).toMatch(/ScanRunnerCluster/);
    // Any revision of the runner's task definition: arn:<partition>:ecs:<region>:<account>:task-definition/<family>:
    const [prefix] = pattern.detail.taskDefinitionArn;
    const [separator, parts] = prefix.prefix['Fn::Join'];
    expect(separator).toBe('');
    expect(parts[0]).toBe('arn:');
    expect(parts.at(-1)).toBe(`:task-definition/${family}:`);
    expect(parts).toContainEqual({ Ref: 'AWS::Region' });
    expect(parts).toContainEqual({ Ref: 'AWS::AccountId' });
    // The one target: the function, its retries bounded; EventBridge may invoke it.
    expect(rule.Properties.Targets).toHaveLength(1);
    expect(rule.Properties.Targets[0]).toMatchObject({
      Arn: { 'Fn::GetAtt': [fnId, 'Arn'] },
      RetryPolicy: { MaximumRetryAttempts: 2 },
    });
    const permission = entries.find(
      ([, r]) =>
        r.Type === 'AWS::Lambda::Permission' &&
        r.Properties.Principal === 'events.amazonaws.com' &&
        JSON.stringify(r.Properties.FunctionName).includes(fnId),
    )!;
    expect(permission[1].Properties.SourceArn).toEqual({ 'Fn::GetAtt': [rules[0][0], 'Arn'] });
    // Its grants follow its code: the run's end (the run, its queue entry, device and slot, the reported scan) on
    // the main table, and nothing of ECS: the event carries all it reads of the task.
    const role = delivery.template.Resources[fn.Properties.Role['Fn::GetAtt'][0]];
    const statements = role.Properties.Policies.flatMap((p: any) => p.PolicyDocument.Statement);
    const actions = statements.flatMap((s: any) => [s.Action].flat());
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem']),
    );
    expect(actions.filter((a: string) => /^(ecs|iam):/.test(a))).toEqual([]);
    for (const s of statements.filter((s: any) => [s.Action].flat().some((a: string) => a.startsWith('dynamodb:'))))
      expect(JSON.stringify(s.Resource)).toMatch(/MainTable|RateLimitTable/);
  });

  it('gives conflicting parameter names at one path position a single name', () => {
    const paths = apiGatewayPaths([
      { ...routes[0], path: '/api/v1/scan/{orgId}' },
      { ...routes[0], path: '/api/v1/scan/{scanId}' },
      { ...routes[0], path: '/api/v1/scan/{scanId}/alerts' },
    ]);
    expect([...paths.values()]).toEqual([
      '/api/v1/scan/{orgId}',
      '/api/v1/scan/{orgId}',
      '/api/v1/scan/{orgId}/alerts',
    ]);
  });

  it("serves the agents' wake channel from a WebSocket API: $connect and $disconnect functions, a MOCK keepalive, one throttled stage", () => {
    const [wakeApi] = Object.entries(template.findResources('AWS::ApiGatewayV2::Api')).filter(
      ([, api]: [string, any]) => api.Properties.ProtocolType === 'WEBSOCKET',
    );
    expect(wakeApi).toBeDefined();
    const [wakeApiId] = wakeApi;
    const routesOf = resources('AWS::ApiGatewayV2::Route').filter((r) => r.Properties.ApiId?.Ref === wakeApiId);
    expect(routesOf.map((r) => r.Properties.RouteKey).sort()).toEqual(['$connect', '$disconnect', 'ping']);
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration') as Record<string, any>;
    const integrationOf = (key: string) => {
      const target = routesOf.find((r) => r.Properties.RouteKey === key)!.Properties.Target;
      const id = JSON.stringify(target).match(/"(\w+Integration\w*)"/)![1];
      return integrations[id].Properties;
    };
    expect(integrationOf('ping').IntegrationType).toBe('MOCK');
    const fns = template.findResources('AWS::Lambda::Function') as Record<string, any>;
    for (const [key, description] of [
      ['$connect', WAKE_CONNECT_DESCRIPTION],
      ['$disconnect', WAKE_DISCONNECT_DESCRIPTION],
    ]) {
      const [fnId] = Object.entries(fns).find(([, fn]) => fn.Properties.Description === description)!;
      expect(integrationOf(key).IntegrationType, key).toBe('AWS_PROXY');
      expect(JSON.stringify(integrationOf(key).IntegrationUri), key).toContain(fnId.replace(/[0-9A-F]{8}$/, ''));
    }
    const stages = resources('AWS::ApiGatewayV2::Stage').filter((s) => s.Properties.ApiId?.Ref === wakeApiId);
    expect(stages.map((s) => [s.Properties.StageName, s.Properties.AutoDeploy])).toEqual([['wake', true]]);
    // A connected client cannot flood the stage: its routes are throttled together.
    expect(stages[0].Properties.DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: WAKE_STAGE_RATE_LIMIT,
      ThrottlingBurstLimit: WAKE_STAGE_BURST_LIMIT,
    });
  });
});
