import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import type { ApplicationRecord, EnvironmentRecord } from '../../shared/applications/model.ts';
import type { TransactItem } from '../../shared/db/transactions.ts';
import type { FindingsBefore, ScanRecord } from '../../shared/results/model.ts';
import type { ReportedAlert, ReportedUri } from '../../shared/scans/inputs.ts';
import type { BenchContext } from './harness.ts';

// The million section's data set (scripts/bench/million.ts), seeded with BatchWriteItem in the shape the service
// writes. Every item comes from the service's own builders, in the order an import writes them
// (shared/scans/import.ts): the alerts (alertRecordOf, keys.scanAlert), the URIs and messages (findingItems,
// putFindings' findingDataItems; with the alerts in one stream of full BatchWriteItem calls, beside the pending
// write's start), the environment's findings and triage figures as read now (findingsOfScan), the trend projection
// (publicationTrend), the finding records under a pending write (recordFindings), the scan's digest (putScanDigest,
// from the findings findingsOfScan computed, as an import writes it), then one transaction with the
// scan and its projections (scanStart: list entries, lookup, configuration use, outbox), the environment's
// last-scan fields with their projections and its application's health (environmentScanWrites), the triage version
// check, the trend figures and the pending write's end. Nothing is hand-copied: an item a new projection derives is
// one more call in `publication` below. Not written: the audit entries (the seed is no caller's action).
// Environments are published several at a time (`parallel`), each one's bulk items with the repositories'
// parallel BatchWriteItem (unprocessed items retried there); a transaction that loses a race to another
// environment's (the application's health, the organization's counters) is built again from fresh reads through the
// one retry helper (shared/db/retry.ts).

/** The service modules the seed calls, loaded once the local stack has configured the environment. */
async function services() {
  return {
    ...(await import('../../shared/scans/import.ts')),
    ...(await import('../../shared/scans/reporting.ts')),
    ...(await import('../../shared/scans/scan-write.ts')),
    ...(await import('../../shared/scans/scans.ts')),
    ...(await import('../../shared/scans/scan-digest.ts')),
    ...(await import('../../shared/results/scan-repository.ts')),
    ...(await import('../../shared/results/finding-repository.ts')),
    ...(await import('../../shared/results/streams.ts')),
    ...(await import('../../shared/results/model.ts')),
    ...(await import('../../shared/findings/scan-findings.ts')),
    ...(await import('../../shared/trends/writes.ts')),
    ...(await import('../../shared/applications/environment-repository.ts')),
    ...(await import('../../shared/applications/application-repository.ts')),
    ...(await import('../../shared/db/retry.ts')),
    ...(await import('../../shared/db/transactions.ts')),
    ...(await import('../../shared/db/query.ts')),
    ...(await import('../../shared/db/keys.ts')),
    limits: await import('../../shared/limits.ts'),
  };
}
type Services = Awaited<ReturnType<typeof services>>;

/** One scan to publish: its environment and its findings by alert (built when it is published). */
export interface ScanToPublish {
  applicationId: string;
  environmentId: string;
  report: () => ReportedAlert[];
}

const PLUGINS = ['40018', '40012', '10020', '10021', '10038', '10202', '90022', '10096', '10035', '10063'];
const SEVERITIES = ['High', 'Medium', 'Low'] as const;
/** BatchWriteItem calls in flight per environment's bulk write (DynamoDB Local saturates near 8 on 2 cores). */
const BULK_CALLS = 8;

/** `i` in letters (a, b, ..., z, ba, bb, ...): a path segment that issue paths never template as `{id}`. */
function word(i: number): string {
  let s = '';
  do {
    s = String.fromCharCode(97 + (i % 26)) + s;
    i = Math.floor(i / 26);
  } while (i > 0);
  return s;
}

/**
 * Finding `i` of an environment's report: the same URI in every scan, so a later, bigger scan is a superset. Each
 * its own finding and issue: a numeric segment would be templated (`/api/items/{id}/detail`), making every URI of a
 * plugin one finding and every finding of a method one issue (docs/ISSUES.md).
 */
function reportedUri(i: number): ReportedUri {
  return {
    uri: `/api/items/${word(i)}/detail`,
    requestMethod: i % 5 === 0 ? 'POST' : 'GET',
    param: 'q',
    evidence: `evidence ${i}`,
    otherInfo: '',
    requestHeader: `GET /api/items/${word(i)}/detail HTTP/1.1`,
    requestBody: '',
    responseHeader: 'HTTP/1.1 200 OK',
    responseBody: '',
  };
}

/** The alerts of a scan reporting findings [from, to) of its environment, over `plugins` plugins. */
export function alertsOf(from: number, to: number, plugins = PLUGINS.length): ReportedAlert[] {
  const byPlugin = new Map<number, ReportedUri[]>();
  for (let i = from; i < to; i++) {
    const p = i % plugins;
    const uris = byPlugin.get(p) ?? [];
    uris.push(reportedUri(i));
    byPlugin.set(p, uris);
  }
  return [...byPlugin].map(([p, uris]) => ({
    pluginId: PLUGINS[p % PLUGINS.length] + (p >= PLUGINS.length ? `-${p}` : ''),
    name: `Plugin ${p}`,
    severity: SEVERITIES[p % SEVERITIES.length],
    description: 'A finding the bench seeded.',
    cweId: '79',
    references: [],
    uris,
  }));
}

/** Publishes scans, `parallel` environments at a time, with the seed's throughput in items per second. */
export class Seeder {
  private s!: Services;
  items = 0;
  seconds = 0;
  constructor(
    private ctx: BenchContext,
    private userId: string,
    private parallel = 8,
  ) {}

  async load(): Promise<void> {
    this.s = await services();
  }

  /** Publishes each scan as a completed scan, its environment's latest; returns their scan ids in order. */
  async publish(scans: ScanToPublish[], label: string): Promise<string[]> {
    const ids = new Array<string>(scans.length);
    const started = performance.now();
    const itemsBefore = this.items;
    let done = 0;
    await this.s.inParallel(
      scans.map((scan, i) => ({ scan, i })),
      this.parallel,
      async ({ scan, i }) => {
        ids[i] = await this.publication(scan);
        if (++done % 200 === 0 || done === scans.length) {
          const seconds = (performance.now() - started) / 1000;
          this.ctx.progress(
            `${label}: ${done}/${scans.length} scans, ${this.items - itemsBefore} items, ${Math.round((this.items - itemsBefore) / seconds)} items/s`,
          );
        }
      },
    );
    this.seconds += (performance.now() - started) / 1000;
    return ids;
  }

  /** One scan's publication, in the import's order (see the header). */
  private async publication(to: ScanToPublish): Promise<string> {
    const s = this.s;
    const [app, env] = await Promise.all([
      s.getApplication(to.applicationId),
      s.getEnvironment(to.applicationId, to.environmentId),
    ]);
    if (!app || !env) throw new Error(`environment ${to.environmentId} not found`);
    const alerts = to.report();
    const reportedUris = alerts.reduce((n, a) => n + a.uris.length, 0);
    const scan: ScanRecord = {
      scanId: randomUUID(),
      organizationId: app.organizationId,
      applicationId: app.applicationId,
      environmentId: env.environmentId,
      envName: env.name,
      status: 'COMPLETED',
      userId: this.userId,
      startedAt: Date.now() - 60_000,
      urlCount: reportedUris,
      hawkscanVersion: '4.0.0',
      host: 'https://target.test',
      tags: [],
      configHash: '0'.repeat(64),
      scanType: 'DEFAULT',
      reportedUris,
      stream: s.HAWKSCAN_STREAM,
    };
    const records = alerts.map(s.alertRecordOf);
    const { applicationId: appId, environmentId: envId, scanId } = scan;
    const attempt = randomUUID();
    // The pending write (before the finding records) beside the alerts, URIs and messages, which go in one stream
    // of full BatchWriteItem calls (putFindings' items: findingDataItems).
    const pending = s.pendingFindingsStart(appId, {
      attempt,
      environmentId: envId,
      scanId,
      kind: 'import',
      expiresAt: Date.now() + s.limits.PENDING_WRITE_EXPIRY_MS,
    });
    const bulk = s.batchPut(
      [
        ...records.map((alert) => ({
          ...s.keys.scanAlert(appId, envId, scanId, alert.pluginId),
          entity: 'scanAlert',
          ...alert,
        })),
        ...s.findingDataItems(
          scan,
          alerts.flatMap((alert) => s.findingItems(scan, alert.pluginId, alert.uris, 0)),
        ),
      ],
      BULK_CALLS,
    );
    await Promise.all([pending, bulk]);
    this.items += records.length + 2 * reportedUris;
    // The environment as read above on the first attempt (nothing else writes it meanwhile); read again on a retry.
    let read: EnvironmentRecord | undefined = env;
    await s.retryOnConflict({ conflict: s.transactionConflict() }, async () => {
      const current = read ?? ((await s.getEnvironment(appId, envId)) as EnvironmentRecord);
      read = undefined;
      const { items, recorded } = await this.publicationItems(app, current, scan, records, attempt);
      await s.transactWrite(items);
      this.items += recorded;
    });
    return scanId;
  }

  /** The finding records written (under the pending write) and the publishing transaction's items. */
  private async publicationItems(
    app: ApplicationRecord,
    env: EnvironmentRecord,
    scan: ScanRecord,
    records: ReturnType<Services['alertRecordOf']>[],
    attempt: string,
  ): Promise<{ items: TransactItem[]; recorded: number }> {
    const s = this.s;
    const found = await s.findingsOfScan(scan, records);
    const now = Date.now();
    const trend = await s.publicationTrend(scan, found, scan.stream, now);
    // What findingsBefore reads, from the records findingsOfScan read (this attempt's own read as before it).
    const before: FindingsBefore = {
      scanId: scan.scanId,
      attempt,
      previous: trend.records.flatMap((f) => found.known.get(f.findingHash) ?? []),
      added: trend.records.filter((f) => !found.known.has(f.findingHash)).map((f) => f.findingHash),
    };
    await s.recordFindings(scan, trend.records, before);
    // The scan's digest, its unpublished data's last write (import.ts, carryRulesAndDigest): the diff and the SARIF
    // export read it as they do a published scan's.
    await s.putScanDigest(scan, found.findings, records, found.templates);
    const done: ScanRecord = {
      ...scan,
      completedAt: now,
      durationSeconds: Math.round((now - scan.startedAt) / 1000),
      stats: { ...s.statsOf(records), ...found.stats },
    };
    const streams = { ...(await s.currentStreams(env)), [scan.stream!]: s.headOf(done) };
    const items = [
      s.pendingFindingsEnd(scan.applicationId, attempt),
      ...s.scanStart(done, app),
      // Its open issues with its streams, as an import's publication writes them.
      ...(await s.environmentScanWrites(env, { lastScan: s.lastScanOf(done), streams, openIssues: trend.openIssues })),
      s.triageVersionCheck(done, found.triageVersion),
      ...trend.items,
    ];
    return { items, recorded: trend.records.length };
  }
}
