import { describe, expect, it } from 'vitest';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { createApp, pluginAlert as alert, scanOnce, startScan } from './scan-helpers.ts';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { findingsOfEnvironment } from '../../shared/results/finding-repository.ts';
import { FULL_WALKS, overviewOf } from '../../shared/overview/overview.ts';
import { rebuildDigests } from '../../shared/overview/overdue-digests.ts';
import { withConsistentReads } from '../../shared/db/consistent-reads.ts';
import { getItem, queryItems } from '../../shared/db/query.ts';
import type { ListEntry } from '../../shared/applications/model.ts';

// The overview's overdue findings from the environments' overdue digests (shared/overview/overdue-digests.ts): after
// every write of their inputs (a triage that stops or restarts a clock, a new scan) the answer is still the full
// recomputation's (overviewOf with FULL_WALKS, as the bench compares it); an SLA policy or override change needs no
// rewrite of a digest, and the answer follows it.

const DAY = 86_400_000;
type Body = Record<string, any>;
type ReadInput = { ConsistentRead?: boolean; RequestItems?: Record<string, { ConsistentRead?: boolean }> };

/** The read commands the shared client sends while `fn` runs, each with whether it was strongly consistent. */
async function readsOf(fn: () => Promise<unknown>) {
  const reads: { command: string; consistent: boolean }[] = [];
  const name = 'recordReadsOfTest';
  db.middlewareStack.add(
    (next, context) => (args) => {
      const command = context.commandName ?? '';
      const input = args.input as ReadInput;
      const tables = Object.values(input.RequestItems ?? {});
      if (/^(Get|BatchGet|Query|Scan)/.test(command))
        reads.push({
          command,
          consistent: tables.length ? tables.every((t) => t.ConsistentRead) : !!input.ConsistentRead,
        });
      return next(args);
    },
    { step: 'build', name },
  );
  try {
    await fn();
  } finally {
    db.middlewareStack.remove(name);
  }
  return reads;
}

/** Moves the first sightings of the environment's findings of `severity` back `days`, each a minute apart. */
async function backdate(appId: string, envId: string, severity: string, days: number) {
  let i = 0;
  for await (const f of findingsOfEnvironment({ applicationId: appId, environmentId: envId })) {
    if (f.severity !== severity) continue;
    await db.send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME,
        Key: keys.finding(appId, envId, f.findingHash!),
        UpdateExpression: 'SET firstSeen = :t',
        ExpressionAttributeValues: { ':t': Date.now() - days * DAY - i++ * 60_000 },
      }),
    );
  }
}

const digestOf = async (appId: string, envId: string) =>
  (await db.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: keys.overdueDigest(appId, envId) }))).Item;

/** The overview's overdue block, checked against the full recomputation as of the answer's moment. */
async function overdue(tenant: Pick<Tenant, 'orgId' | 'token'>) {
  const out = await api('GET', `/api/v1/org/${tenant.orgId}/overview`, { token: tenant.token });
  expect(out.status, out.text).toBe(200);
  const body = out.body as Body;
  const recomputed = await overviewOf(tenant.orgId, () => true, Date.parse(body.generatedAt), FULL_WALKS);
  expect(body.overdue).toEqual(JSON.parse(JSON.stringify(recomputed.overdue)));
  return body.overdue as Body;
}

describe('getOrganizationOverview: overdue findings from the digests', () => {
  it('answers as the recomputation after triages, scans, SLA policy and override changes', async () => {
    const tenant = await createTenant();
    const shop = await createApp(tenant, { name: 'shop', env: 'prod' });
    const blog = await createApp(tenant, { name: 'blog', env: 'dev' });
    const prod = await scanOnce(
      tenant.token,
      shop,
      [
        alert('40018', 'High', ['/a', '/b', '/c']),
        alert('10038', 'Medium', ['/d', '/e']),
        alert('10020', 'Low', ['/f', '/g']),
      ],
      'prod',
    );
    const dev = await scanOnce(tenant.token, blog, [alert('40018', 'High', ['/x']), alert('10021', 'Low', ['/y'])]);
    // Highs 50 days old (past the default 30), Mediums 80 (not past 90), Lows 200 (past 180); the blog's High 40.
    await backdate(shop, prod.envId, 'High', 50);
    await backdate(shop, prod.envId, 'Medium', 80);
    await backdate(shop, prod.envId, 'Low', 200);
    await backdate(blog, dev.envId, 'High', 40);

    // The first read builds the digests and writes them back at their inputs' version; the next reads them.
    const first = await overdue(tenant);
    expect(first).toMatchObject({ overdueCount: 6, overdueBySeverity: { High: 4, Medium: 0, Low: 2 } });
    expect(first.findingsWithDueDate).toBe(9);
    const built = await digestOf(shop, prod.envId);
    expect(built).toMatchObject({ issues: 7 });
    expect(built!.built).toBe(built!.version ?? 0);
    expect(await overdue(tenant)).toEqual({ ...first });

    // A risk accepted stops its clock: the triage moves the digest's version, and the finding leaves the list. It is
    // the High at /c (the rescan below fixes it); which High is oldest follows the random finding hashes.
    const accepted = first.findings.find((f: Body) => f.severity === 'High' && f.url.endsWith('/c')) as Body;
    const triage = (findingHash: string, status: string) =>
      api(
        'POST',
        `/api/v1/org/${tenant.orgId}/app/${accepted.applicationId}/env/${accepted.environmentId}/findings/triage`,
        {
          token: tenant.token,
          body: { actions: [{ findingHash, status, note: 'checked' }] },
        },
      );
    const before = (await digestOf(accepted.applicationId, accepted.environmentId))!;
    expect((await triage(accepted.findingHash, 'RISK_ACCEPTED')).status).toBe(200);
    expect((await digestOf(accepted.applicationId, accepted.environmentId))!.version).toBeGreaterThan(
      before.version ?? 0,
    );
    const paused = await overdue(tenant);
    expect(paused.overdueCount).toBe(5);
    expect(paused.findings.map((f: Body) => f.findingHash)).not.toContain(accepted.findingHash);

    // A comment on it keeps its status (the clock stays stopped), and moves the version again.
    expect((await triage(accepted.findingHash, 'ADD_COMMENT')).status).toBe(200);
    expect((await overdue(tenant)).overdueCount).toBe(5);

    // A new scan of the shop: one High fixed, a new Low (its clock starts now); the digest is rebuilt.
    await scanOnce(
      tenant.token,
      shop,
      [
        alert('40018', 'High', ['/a', '/b']),
        alert('10038', 'Medium', ['/d', '/e']),
        alert('10020', 'Low', ['/f', '/g', '/new']),
      ],
      'prod',
    );
    const rescanned = await overdue(tenant);
    expect(rescanned.findingsWithDueDate).toBe(9);
    expect(rescanned.overdueBySeverity.Low).toBe(2);

    // The SLA policy and an override apply at the read: no digest is rewritten, and the answer follows them.
    const settled = (await digestOf(shop, prod.envId))!;
    expect(settled.built).toBe(settled.version);
    const policy = await api('PUT', `/api/v1/org/${tenant.orgId}/sla`, {
      token: tenant.token,
      body: { days: { High: 45, Medium: 60, Low: 365 } },
    });
    expect(policy.status, policy.text).toBe(200);
    const strict = await overdue(tenant);
    // Highs at 50 days only (the blog's 40 are not past 45), Mediums at 80 days, no Low.
    expect(strict.overdueBySeverity).toEqual({ High: 2, Medium: 2, Low: 0 });
    const override = await api('PUT', `/api/v1/app/${blog}/env/${dev.envId}/sla`, {
      token: tenant.token,
      body: { days: { High: 10 } },
    });
    expect(override.status, override.text).toBe(200);
    const overridden = await overdue(tenant);
    expect(overridden.overdueBySeverity).toEqual({ High: 3, Medium: 2, Low: 0 });
    expect(overridden.findings[0]).toMatchObject({ environmentId: dev.envId, severity: 'High', daysLeft: -31 });
    const untouched = (await digestOf(shop, prod.envId))!;
    expect([untouched.version, untouched.built]).toEqual([settled.version, settled.built]);
  });

  it('rebuilds a digest from strongly consistent reads only, and refuses an index read among them', async () => {
    const tenant = await createTenant();
    const shop = await createApp(tenant, { name: 'shop', env: 'prod' });
    const prod = await scanOnce(tenant.token, shop, [alert('40018', 'High', ['/a', '/b'])], 'prod');
    await backdate(shop, prod.envId, 'High', 50);
    const version = ((await digestOf(shop, prod.envId))?.version as number | undefined) ?? 0;
    const env = { applicationId: shop, environmentId: prod.envId } as ListEntry;
    let issues = -1;
    const reads = await readsOf(async () => {
      [
        {
          digest: { issues },
        },
      ] = await rebuildDigests(tenant.orgId, [{ env, version, tag: '' }], Date.now());
    });
    expect(issues).toBe(2);
    // The environment's record, its current scan, the scan's alerts and URIs, its rules and first sightings.
    expect(reads.length).toBeGreaterThanOrEqual(4);
    expect(reads.filter((r) => !r.consistent)).toEqual([]);
    expect(await digestOf(shop, prod.envId)).toMatchObject({ built: version, issues: 2 });

    // A scan running in the stream: its completed predecessor is found through the scan index, read again by key.
    await startScan(tenant.token, shop, { env: 'prod' });
    const walked = await readsOf(async () => {
      [
        {
          digest: { issues },
        },
      ] = await rebuildDigests(tenant.orgId, [{ env }], Date.now());
    });
    expect(issues).toBe(2);
    expect(walked.filter((r) => !r.consistent)).toEqual([{ command: 'QueryCommand', consistent: false }]);

    // The recorder tells them apart: the same read outside is eventually consistent.
    const key = keys.overdueDigest(shop, prod.envId);
    expect(await readsOf(() => getItem(key))).toEqual([{ command: 'GetItemCommand', consistent: false }]);
    expect(await readsOf(() => withConsistentReads(() => getItem(key)))).toEqual([
      { command: 'GetItemCommand', consistent: true },
    ]);
    const indexWalk = async () => {
      for await (const item of queryItems({ index: 'gsi1', partition: `ORG#${tenant.orgId}` })) void item;
    };
    await expect(withConsistentReads(indexWalk)).rejects.toThrow(/index gsi1: indexes are eventually consistent/);
  });
});
