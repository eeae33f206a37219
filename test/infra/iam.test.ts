import { describe, expect, inject, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { readCloudAssembly } from '../synth-setup.ts';
import { routes } from '../../shared/routes.ts';
import { SERVICE_DESCRIPTION } from '../../shared/service/pages.ts';
import {
  WAKE_CONNECT_DESCRIPTION,
  WAKE_DISCONNECT_DESCRIPTION,
  WEBHOOK_DELIVERY_DESCRIPTION,
  WEBHOOK_RELAY_DESCRIPTION,
} from '../../infra/stack.ts';

// IAM coverage: what each deployed function can call must be granted to its role. Locally there is no IAM, so
// this is the only place a missing grant shows before AWS answers 500. The check reads the synthesized bundle
// itself (the minified index.js CDK staged) with its own reading, independent of infra/code-access.ts which
// derives the grants: every AWS SDK command the bundle can construct (modules it requires and `await import(...)`
// destructurings) maps to the IAM actions and resources it needs, and the function's role must hold each.

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}
interface Needed {
  action: string;
  /**
   * Which resource: the main/rate-limit table, its indexes, an object of the bucket, the bucket, a secret, the
   * integration KMS key, the webhook delivery queue, the hosted runner's task definition or its roles.
   */
  resource:
    | 'table'
    | 'index'
    | 'object'
    | 'bucket'
    | 'secret'
    | 'kms-key'
    | 'queue'
    | 'task-definition'
    | 'runner-role'
    | 'scan-schedule'
    | 'schedule-role'
    | 'wake-connections'
    | 'wake-connections-close';
  why: string;
}

const { template, bundles } = readCloudAssembly(inject('cloudAssembly'));

/**
 * Every AWS SDK export a minified CommonJS bundle (infra/bundling.ts) binds and uses, by module:
 * `var s=require("@aws-sdk/x")` then `s.A`, `{A:b}=require("@aws-sdk/x")`, and loads on use, which esbuild writes
 * `Promise.resolve().then(()=>c(require("@aws-sdk/x"),1))` (or `import("@aws-sdk/x")`), destructured after `await`
 * or in a `.then(({A:b})=>...)`. A command counts when the bundle has a `new b(` or `new s.A(` (over-approximating:
 * a short minified name may also be another variable).
 */
export function sdkImports(bundle: string): { module: string; name: string; constructed: boolean; called: boolean }[] {
  const found: { module: string; name: string; local: string }[] = [];
  const add = (module: string, spec: string, separator: RegExp) => {
    const [name, local] = spec
      .trim()
      .split(separator)
      .map((part) => part.trim());
    if (name) found.push({ module, name, local: local ?? name });
  };
  const escape = (name: string) => name.replace(/[$.]/g, '\\$&');
  for (const m of bundle.matchAll(/([\w$]+)=require\("(@aws-sdk\/[^"]+)"\)/g)) {
    // The whole module: each `s.Name` the bundle reads.
    for (const use of bundle.matchAll(new RegExp(`(?<![\\w$.])${escape(m[1])}\\.([A-Za-z_$][\\w$]*)`, 'g')))
      found.push({ module: m[2], name: use[1], local: `${m[1]}.${use[1]}` });
  }
  const onUse = String.raw`(?:import\("(@aws-sdk\/[^"]+)"\)|Promise\.resolve\(\)\.then\(\(\)=>[\w$]+\(require\("(@aws-sdk\/[^"]+)"\)(?:,\d)?\)\))`;
  for (const m of bundle.matchAll(/\{([^{}]*)\}\s*=\s*require\("(@aws-sdk\/[^"]+)"\)/g))
    for (const spec of m[1].split(',')) add(m[2], spec, /:/);
  for (const m of bundle.matchAll(new RegExp(String.raw`\{([^{}]*)\}\s*=\s*await\s+${onUse}`, 'g')))
    for (const spec of m[1].split(',')) add(m[2] ?? m[3], spec, /:/);
  for (const m of bundle.matchAll(new RegExp(String.raw`${onUse}\.then\(\s*\(?\s*\{([^}]*)\}`, 'g')))
    for (const spec of m[3].split(',')) add(m[1] ?? m[2], spec, /:/);
  const unique = new Map(found.map((f) => [`${f.module} ${f.name} ${f.local}`, f]));
  return [...unique.values()].map(({ module, name, local }) => ({
    module,
    name,
    constructed: new RegExp(`new ${escape(local)}\\(`).test(bundle),
    // `b(`, or `(0,s.A)(` as esbuild calls a module's function.
    called: new RegExp(`(?:[^.\\w$]${escape(local)}|\\(0,${escape(local)}\\))\\(`).test(bundle),
  }));
}

const DOCUMENT_TO_ITEM: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
};

/** What the bundle needs, from its own text. */
export function neededBy(bundle: string): Needed[] {
  const needed: Needed[] = [];
  for (const { module, name, constructed } of sdkImports(bundle)) {
    if (!name.endsWith('Command') || !constructed) continue;
    const bare = name.replace(/Command$/, '');
    if (module.includes('dynamodb')) {
      if (bare === 'TransactWrite' || bare === 'TransactWriteItems') {
        // A TransactWriteItems call needs the action of every kind of item the bundle builds.
        const kinds = new Set(
          [...bundle.matchAll(/\b(Put|Update|Delete|ConditionCheck):\{TableName:/g)].map((m) => m[1]),
        );
        expect(kinds.size, 'transaction items in the bundle').toBeGreaterThan(0);
        for (const kind of kinds)
          needed.push({ action: `dynamodb:${kind}Item`, resource: 'table', why: `${name} carries ${kind} items` });
      } else if (bare === 'Query') {
        needed.push({ action: 'dynamodb:Query', resource: 'table', why: name });
        if (/IndexName:/.test(bundle))
          needed.push({ action: 'dynamodb:Query', resource: 'index', why: `${name} with an IndexName` });
      } else {
        needed.push({ action: `dynamodb:${DOCUMENT_TO_ITEM[bare] ?? bare}`, resource: 'table', why: name });
      }
    } else if (module === '@aws-sdk/client-s3') {
      if (bare === 'ListObjectsV2' || bare === 'ListObjects')
        needed.push({ action: 's3:ListBucket', resource: 'bucket', why: name });
      else if (bare === 'HeadObject') needed.push({ action: 's3:GetObject', resource: 'object', why: name });
      else if (bare === 'DeleteObjects') needed.push({ action: 's3:DeleteObject', resource: 'object', why: name });
      else needed.push({ action: `s3:${bare}`, resource: 'object', why: name });
    } else if (module === '@aws-sdk/client-secrets-manager') {
      needed.push({ action: `secretsmanager:${bare}`, resource: 'secret', why: name });
    } else if (module === '@aws-sdk/client-kms') {
      needed.push({ action: `kms:${bare}`, resource: 'kms-key', why: name });
    } else if (module === '@aws-sdk/client-sqs') {
      const action = bare === 'SendMessageBatch' ? 'SendMessage' : bare;
      needed.push({ action: `sqs:${action}`, resource: 'queue', why: name });
    } else if (module === '@aws-sdk/client-ecs' && bare === 'RunTask') {
      // Starting a task passes its task and execution roles to ECS.
      needed.push({ action: 'ecs:RunTask', resource: 'task-definition', why: name });
      needed.push({ action: 'iam:PassRole', resource: 'runner-role', why: `${name} passes the task's roles` });
    } else if (
      module === '@aws-sdk/client-scheduler' &&
      ['CreateSchedule', 'UpdateSchedule', 'DeleteSchedule'].includes(bare)
    ) {
      needed.push({ action: `scheduler:${bare}`, resource: 'scan-schedule', why: name });
      // A schedule created or updated names the role EventBridge Scheduler invokes its target with.
      if (bare !== 'DeleteSchedule')
        needed.push({ action: 'iam:PassRole', resource: 'schedule-role', why: `${name} passes the invoking role` });
    } else if (module === '@aws-sdk/client-apigatewaymanagementapi' && bare === 'PostToConnection') {
      // A wake posted to an agent's wake channel (shared/perch/wake.ts).
      needed.push({ action: 'execute-api:ManageConnections', resource: 'wake-connections', why: name });
    } else if (module === '@aws-sdk/client-apigatewaymanagementapi' && bare === 'DeleteConnection') {
      // A connection whose session is no longer let in, closed by a wake (shared/perch/wake.ts).
      needed.push({ action: 'execute-api:ManageConnections', resource: 'wake-connections-close', why: name });
    } else {
      throw new Error(`the test does not know what ${module} ${name} needs`);
    }
  }
  // A presigned URL is authorized as the signing role: a presigned GET needs s3:GetObject.
  if (
    sdkImports(bundle).some(
      (i) => i.module === '@aws-sdk/s3-request-presigner' && i.name === 'getSignedUrl' && i.called,
    )
  ) {
    needed.push({ action: 's3:GetObject', resource: 'object', why: 'presigned GET (getSignedUrl)' });
  }
  return needed;
}

function resourceKind(resource: unknown): Needed['resource'] | 'other' {
  const text = JSON.stringify(resource);
  if (text.includes('JwtSigningSecret')) return 'secret';
  if (/"IntegrationKey[0-9A-F]{8}"/.test(text)) return 'kms-key';
  if (text.includes('WebhookQueue')) return 'queue';
  if (text.includes('MainTable') || text.includes('RateLimitTable'))
    return text.includes('/index/') ? 'index' : 'table';
  if (text.includes('AssetsBucket')) return text.includes('"/') ? 'object' : 'bucket';
  if (text.includes(':task-definition/')) return 'task-definition';
  if (/ScanRunnerTaskDefinition\w*(TaskRole|ExecutionRole)/.test(text)) return 'runner-role';
  if (text.includes(':schedule/') && text.includes('/hawk-scan-*')) return 'scan-schedule';
  if (/ScanScheduleInvokeRole/.test(text)) return 'schedule-role';
  if (/WakeChannel/.test(text) && text.includes('/POST/@connections/*')) return 'wake-connections';
  if (/WakeChannel/.test(text) && text.includes('/DELETE/@connections/*')) return 'wake-connections-close';
  return 'other';
}

export function missingGrants(needed: Needed[], statements: Statement[]): Needed[] {
  return needed.filter(
    (need) =>
      !statements.some(
        (s) =>
          s.Effect === 'Allow' &&
          [s.Action].flat().includes(need.action) &&
          [s.Resource].flat().some((r) => resourceKind(r) === need.resource),
      ),
  );
}

/** Each function's role statements, by the route it serves. */
function functions() {
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([id, fn]) => {
      const roleId = fn.Properties.Role['Fn::GetAtt'][0];
      // Inline in the role (infra/stack.ts), and nowhere else: no AWS::IAM::Policy names the role.
      const policies = [
        ...(template.Resources[roleId].Properties.Policies ?? []),
        ...Object.values(template.Resources)
          .filter(
            (r) =>
              r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((ref: { Ref: string }) => ref.Ref === roleId),
          )
          .map((r) => r.Properties),
      ];
      const statements = policies.flatMap((p) => p.PolicyDocument.Statement as Statement[]);
      const route = routes.find((r) => fn.Properties.Description === `${r.method} ${r.path}`);
      // A queue's event source mapping polls with the function's role: receiving, deleting and reading attributes.
      const polled = Object.values(template.Resources).some(
        (r) => r.Type === 'AWS::Lambda::EventSourceMapping' && JSON.stringify(r.Properties.FunctionName).includes(id),
      );
      const bundle = readFileSync(bundles.get(id)!, 'utf8');
      const needed: Needed[] = [
        ...neededBy(bundle),
        ...(polled
          ? ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'].map((action): Needed => ({
              action,
              resource: 'queue',
              why: 'its queue event source',
            }))
          : []),
      ];
      return {
        id,
        name: route?.operationId ?? id,
        route,
        description: fn.Properties.Description as string,
        statements,
        bundle,
        needed,
      };
    });
}

describe('IAM: every function is granted what its bundle calls', () => {
  const all = functions();

  it('reads a bundle for every route', () => {
    const routed = all.filter((f) => f.route);
    expect(routed.map((f) => f.name).sort()).toEqual(routes.map((r) => r.operationId).sort());
    // Every operation authenticates (the signing secret, the tables); the service function (health, docs) calls nothing.
    for (const f of routed) expect(f.needed.length, f.name).toBeGreaterThan(0);
    const service = all.find((f) => f.description === SERVICE_DESCRIPTION)!;
    expect(neededBy(service.bundle)).toEqual([]);
    expect(service.statements).toEqual([]);
  });

  it('grants each function every action its SDK commands need, on the right kind of resource', () => {
    const gaps = all.flatMap((f) =>
      missingGrants(f.needed, f.statements).map((m) => `${f.name}: ${m.action} on ${m.resource} (${m.why})`),
    );
    expect(gaps).toEqual([]);
  });

  it('notices a missing grant (the check can fail)', () => {
    const create = all.find((f) => f.name === 'createApplication')!;
    const withoutS3 = create.statements.filter((s) => !JSON.stringify(s.Action).includes('s3:'));
    expect(missingGrants(neededBy(create.bundle), withoutS3).map((m) => m.action)).toContain('s3:PutObject');
  });

  it('grants nothing beyond what the bundle needs (actions)', () => {
    for (const f of all) {
      const needed = new Set(f.needed.map((n) => n.action));
      const granted = f.statements.flatMap((s) => [s.Action].flat());
      expect(
        granted.filter((a) => !needed.has(a)),
        f.name,
      ).toEqual([]);
    }
  });

  it('writes nothing on index ARNs, never DescribeSecret, and keeps S3 grants to key prefixes', () => {
    for (const f of all) {
      for (const s of f.statements) {
        const actions = [s.Action].flat();
        const kinds = [s.Resource].flat().map(resourceKind);
        if (kinds.includes('index')) expect(actions, f.name).toEqual(['dynamodb:Query']);
        expect(actions).not.toContain('secretsmanager:DescribeSecret');
        if (actions.includes('s3:ListBucket')) expect(s.Condition?.StringLike?.['s3:prefix'], f.name).toBeDefined();
        // Object grants name a prefix of shared/storage/objects.ts, never the whole bucket.
        if (kinds.includes('object')) expect(JSON.stringify(s.Resource), f.name).not.toMatch(/"\/\*"/);
      }
    }
  });

  it('grants the integration key only to functions that read it, and the delivery queue only to those that queue or consume deliveries', () => {
    // The relay, and the two operations that queue a delivery a person asked for (docs/WEBHOOKS.md).
    const senders = ['testWebhook', 'redeliverWebhookDelivery'];
    for (const f of all) {
      const onIntegrationKey = f.statements.filter((s) => resourceKind(s.Resource) === 'kms-key');
      if (onIntegrationKey.length) expect(f.bundle, f.name).toMatch(/KeyId:[\w$]+(\.integrationKmsKeyArn)?\b/);
      const onQueue = f.statements.filter((s) => resourceKind(s.Resource) === 'queue');
      if (onQueue.length && !senders.includes(f.name))
        expect([WEBHOOK_RELAY_DESCRIPTION, WEBHOOK_DELIVERY_DESCRIPTION], f.name).toContain(f.description);
    }
    const relay = all.find((f) => f.description === WEBHOOK_RELAY_DESCRIPTION)!;
    const consumer = all.find((f) => f.description === WEBHOOK_DELIVERY_DESCRIPTION)!;
    const queueActions = (f: typeof relay) =>
      f.statements
        .filter((s) => resourceKind(s.Resource) === 'queue')
        .flatMap((s) => [s.Action].flat())
        .sort();
    expect(queueActions(relay)).toEqual(['sqs:SendMessage']);
    for (const name of senders)
      expect(queueActions(all.find((f) => f.name === name)!), name).toEqual(['sqs:SendMessage']);
    expect(queueActions(consumer)).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:ReceiveMessage',
    ]);
    // Webhook changes seal (createWebhook: a data key from KMS) and delivery opens (its data key unwrapped by KMS).
    const kmsActions = (f: typeof relay) => f.needed.filter((n) => n.resource === 'kms-key').map((n) => n.action);
    expect(kmsActions(consumer)).toContain('kms:Decrypt');
    expect(kmsActions(all.find((f) => f.name === 'createWebhook')!)).toContain('kms:GenerateDataKey');
    // A function that never seals or opens has no use of the key.
    expect(kmsActions(all.find((f) => f.name === 'listApplications')!)).toEqual([]);
  });

  it("lets login write the rate-limit table and, in the main table, only the key's last use (UpdateItem)", () => {
    const login = all.find((f) => f.name === 'login')!;
    const writes = login.statements.filter((s) =>
      [s.Action].flat().some((a) => /Put|Update|Delete|Write|ConditionCheck/.test(a)),
    );
    expect(writes.some((s) => /RateLimitTable/.test(JSON.stringify(s.Resource)))).toBe(true);
    for (const s of writes.filter((s) => /MainTable/.test(JSON.stringify(s.Resource))))
      expect([s.Action].flat().filter((a) => /Put|Update|Delete|Write|ConditionCheck/.test(a))).toEqual([
        'dynamodb:UpdateItem',
      ]);
  });

  it("lets exactly the functions that wake agents post to the wake channel's connections, and tells them where", () => {
    const posting = all.filter((f) => f.needed.some((n) => n.resource === 'wake-connections'));
    // A run queued (startScan), stopped (stopScan) or ended (updateScanRun) wakes the organization's agents.
    for (const name of ['startScan', 'stopScan', 'updateScanRun']) expect(posting.map((f) => f.name)).toContain(name);
    const fns = template.Resources as Record<string, { Type: string; Properties: any }>;
    for (const f of all) {
      const wakeKind = (r: unknown) => resourceKind(r).startsWith('wake-');
      const granted = f.statements.filter((s) => [s.Resource].flat().some(wakeKind));
      const { Variables } = fns[f.id].Properties.Environment;
      if (posting.includes(f)) {
        // A wake posts to the connections still let in and closes the others (DELETE @connections).
        expect(
          granted.flatMap((s) => [s.Action].flat()),
          f.name,
        ).toEqual(['execute-api:ManageConnections']);
        expect(granted.flatMap((s) => [s.Resource].flat().map(resourceKind)).sort(), f.name).toEqual([
          'wake-connections',
          'wake-connections-close',
        ]);
        expect(JSON.stringify(Variables.WAKE_ENDPOINT), f.name).toMatch(/WakeChannel/);
      } else {
        expect(granted, f.name).toEqual([]);
        expect(Variables.WAKE_ENDPOINT, f.name).toBeUndefined();
      }
    }
    // The registration answers the channel's URL; $connect writes the connection, $disconnect finds and deletes it.
    expect(
      JSON.stringify(
        fns[all.find((f) => f.name === 'registerDevice')!.id].Properties.Environment.Variables.WAKE_CHANNEL_URL,
      ),
    ).toMatch(/WakeChannel/);
    const actions = (description: string) =>
      all
        .find((f) => f.description === description)!
        .statements.flatMap((s) => [s.Action].flat())
        .filter((a, i, all) => a.startsWith('dynamodb:') && all.indexOf(a) === i)
        .sort();
    expect(actions(WAKE_CONNECT_DESCRIPTION)).toEqual(
      expect.arrayContaining(['dynamodb:BatchGetItem', 'dynamodb:PutItem']),
    );
    expect(actions(WAKE_DISCONNECT_DESCRIPTION)).toEqual(['dynamodb:DeleteItem', 'dynamodb:Query']);
  });
});
