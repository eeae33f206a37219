import { setMaxListeners } from 'node:events';
import { randomUUID } from 'node:crypto';
import {
  importedScanConfig,
  importedScanLabels,
  parseReport,
  ReportError,
  toReportedAlerts,
  urlCountOf,
  ReportTooLargeError,
  type ImportedReport,
} from '@hawk-api/scanner/reports';
import { accessibleApplication } from '../applications/access.ts';
import { auditEntry } from '../audit/entries.ts';
import { keys } from '../db/keys.ts';
import { conditionFailed } from '../db/items.ts';
import { failedCondition, retryOnConflict } from '../db/retry.ts';
import { batchPut, deleteFound, untilAborted } from '../db/query.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { badRequest, conflict, notFound, payloadTooLarge } from '../errors.ts';
import { IMPORT_LIMITS, PENDING_SWEEP_MS, PENDING_WRITE_EXPIRY_MS } from '../limits.ts';
import { logger } from '../context/logger.ts';
import { environmentCreationWrites } from '../applications/environments.ts';
import { environmentScanWrites, getEnvironment, getEnvironmentByName } from '../applications/environment-repository.ts';
import { getApplication } from '../applications/application-repository.ts';
import { findingsOfScan } from '../findings/scan-findings.ts';
import { putScanDigest } from './scan-digest.ts';
import { carryIssueRules } from '../findings/rule-write.ts';
import { publicationTrend } from '../trends/writes.ts';
import {
  findingsBefore,
  pendingFindingsEnd,
  pendingFindingsRemove,
  pendingFindingsStart,
  recordFindings,
  restoreFindings,
  sweepPendingFindings,
  triageVersionCheck,
} from '../results/finding-repository.ts';
import {
  type FindingRecord,
  type FindingsBefore,
  streamOfTool,
  type AlertRecord,
  type CountedUri,
  type ScanRecord,
} from '../results/model.ts';
import { configHashOf, parseScanConfig, storeScanConfig } from './configs.ts';
import { reportedAlertSchema, type ReportedAlert } from './inputs.ts';
import { findingItems } from './reporting.ts';
import { findingDataItems } from '../results/scan-repository.ts';
import { scanStart } from './scan-write.ts';
import { headOf, lastScanOf, statsOf, toScanResult } from './scans.ts';
import {
  scanFieldsOf,
  type ApplicationRecord,
  type EnvironmentRecord,
  newEnvironment,
  type OpenIssueCounts,
} from '../applications/model.ts';
import { currentStreams } from '../results/streams.ts';
import type { Caller } from '../context/caller.ts';

// POST /api/v1/app/{appId}/scan/import: a scanner's report (docs/IMPORTS.md) imported as one completed scan
// (docs/DATA-MODEL.md, Scans, Imported reports). Its alerts, URIs and messages are written under a new scan id that nothing can reach
// yet; then one transaction publishes the scan (record, lookup by id, environment last-scan fields, a new
// environment) with SCAN_STARTED, SCAN_COMPLETED (and ENVIRONMENT_ADDED). A failure before it removes what was
// written: the report appears whole or not at all.

const cliHint = (appId: string, env: string) =>
  `import it with the CLI, which sends it in batches: npm run scanner -- import --app ${appId} --env ${JSON.stringify(env)} <report>`;

/** A reader's message, whatever it quotes, within a few hundred characters (answers stay small). */
const boundedMessage = (message: string) => (message.length > 600 ? `${message.slice(0, 600)}... (cut)` : message);

/** The report read and checked, or the 400/413 naming what is wrong (nothing stored yet). */
function readReport(
  body: Buffer,
  appId: string,
  env: string,
  format: string | undefined,
): { report: ImportedReport; alerts: ReportedAlert[] } {
  let report: ImportedReport;
  try {
    // The reader stops at the limits as it maps the report, before the rest of the work.
    report = parseReport(body, format, { maxAlerts: IMPORT_LIMITS.maxAlerts, maxUris: IMPORT_LIMITS.maxUris });
  } catch (error) {
    if (error instanceof ReportTooLargeError)
      throw payloadTooLarge(
        `report: ${error.message}: this operation imports at most ${IMPORT_LIMITS.maxAlerts} alerts and ${IMPORT_LIMITS.maxUris} findings (alert URIs); ${cliHint(appId, env)}`,
      );
    if (error instanceof ReportError) throw badRequest(`report: ${boundedMessage(error.message)}`);
    throw error;
  }
  const alerts = toReportedAlerts(report);
  // The mapping keeps to the reporting operations' rules; checked again so an import never stores what they refuse.
  alerts.forEach((alert, i) => {
    const checked = reportedAlertSchema.safeParse(alert);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw badRequest(
        `report: alert ${alert.pluginId} ("${alert.name.slice(0, 80)}", #${i}) ${issue.path.join('.')}: ${issue.message}`,
      );
    }
  });
  return { report, alerts };
}

/** The alert items as a completed scan has them: every URI counted (one committed range). */
export const alertRecordOf = ({ uris, ...alert }: ReportedAlert): AlertRecord => ({
  ...alert,
  uriCount: uris.length,
  nextUri: uris.length,
  committed: [[0, uris.length]],
});

/** The 413 of an import past its budget (IMPORT_LIMITS.budgetMs), or bound to pass it: nothing imported, the CLI named. */
const overBudget = (appId: string, env: string, progress: string, projected = false) =>
  payloadTooLarge(
    `importing this report ${projected ? 'would take' : 'took'} longer than ${IMPORT_LIMITS.budgetMs / 1000} s (${progress}; the service is busy): nothing was imported; ${cliHint(appId, env)}`,
  );

/**
 * The import's sense of time. `now` is the clock every check reads; `cutAt(at)` is a signal that aborts once that
 * clock passes `at`: it goes with every DynamoDB write, so that one slow write cannot carry the request past its
 * deadline (checks between writes alone did not). Tests pass their own clock, which moves only when they move it.
 */
export interface ImportClock {
  now(): number;
  cutAt(at: number): AbortSignal;
}

export const realClock: ImportClock = {
  now: () => Date.now(),
  cutAt: (at) => {
    const signal = AbortSignal.timeout(Math.max(0, at - Date.now()));
    setMaxListeners(0, signal); // every write in flight listens to it
    return signal;
  },
};

/** What a test may inject: the clock, and a step hook awaited between the import's steps (a crash: never resolving). */
export interface ImportHooks {
  clock?: ImportClock;
  step?: (name: 'pending' | 'stored' | 'recorded' | 'publishing' | 'restored') => Promise<void>;
}

/**
 * The request's time: `deadline` ends its budget; `writingMs` is the time spent writing what a failure must remove.
 * Removing it takes up to three quarters of that (the import bench: 6.1 s for what took 8.4 s to import, 11-12 s for
 * 19 s under load), so storing also stops once that removal could not end within IMPORT_LIMITS.removalAllowanceMs
 * after the deadline: the 413 then comes inside API Gateway's 29 s with nothing left behind, not a 504 mid-removal.
 * Every write is cut at the deadline (`signal`), and the removal at the deadline + the allowance: what a cut removal
 * leaves is swept later (its pending write stays; docs/DATA-MODEL.md, Findings).
 */
const REMOVAL_PER_WRITING = 0.75;

interface Budget {
  deadline: number;
  writingMs: number;
  clock: ImportClock;
  signal: AbortSignal;
}

function checkBudget(budget: Budget, appId: string, env: string, progress: string): void {
  const now = budget.clock.now();
  if (now > budget.deadline || budget.signal.aborted) throw overBudget(appId, env, progress);
  if (now + budget.writingMs * REMOVAL_PER_WRITING > budget.deadline + IMPORT_LIMITS.removalAllowanceMs)
    throw overBudget(appId, env, progress, true);
}

/**
 * A write of the unpublished scan's data (`write` passes `check` to batchPut: it runs before each BatchWriteItem
 * call), its time counted in the budget's `writingMs` as it goes; the budget is checked before every call, so the
 * write stops at the deadline, or once removing what it wrote would not fit (413), with at most
 * IMPORT_LIMITS.writeConcurrency calls in flight to remove after it. Cut at the deadline (`signal`).
 */
async function timedWrite(
  budget: Budget,
  appId: string,
  env: string,
  progress: (written: number) => string,
  write: (signal: AbortSignal, check: (written: number) => void) => Promise<void>,
): Promise<void> {
  const start = budget.clock.now();
  const before = budget.writingMs;
  let last = progress(0);
  try {
    await write(budget.signal, (written) => {
      budget.writingMs = before + budget.clock.now() - start;
      last = progress(written);
      checkBudget(budget, appId, env, last);
    });
  } catch (error) {
    if (budget.signal.aborted) throw Object.assign(overBudget(appId, env, last), { cutWrite: true });
    throw error;
  } finally {
    budget.writingMs = before + budget.clock.now() - start;
  }
}

/**
 * A step that is not a write of the unpublished scan (reads, the scan configuration, the pending write), cut at the
 * deadline like the writes (413): no step carries the request past it. Reads cut in flight change nothing.
 */
async function withinBudget<T>(
  budget: Budget,
  appId: string,
  env: string,
  progress: string,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await untilAborted(budget.signal, step);
  } catch (error) {
    if (budget.signal.aborted) throw overBudget(appId, env, progress);
    throw error;
  }
}

/**
 * The unpublished scan's data: its alerts' records, their items and each finding's URI and message items (in one
 * list: written as one stream of BatchWriteItem calls), and the URIs as findingsOfScan counts them (all of them:
 * an import's alerts count every URI), so that it need not read back what was just written.
 */
function scanData(scan: ScanRecord, alerts: ReportedAlert[]) {
  const { applicationId: appId, environmentId: envId, scanId } = scan;
  const records = alerts.map(alertRecordOf);
  const items: Record<string, unknown>[] = records.map((alert) => ({
    ...keys.scanAlert(appId, envId, scanId, alert.pluginId),
    entity: 'scanAlert',
    ...alert,
  }));
  const counted: CountedUri[] = [];
  alerts.forEach((alert, i) => {
    const findings = findingItems(scan, alert.pluginId, alert.uris, 0);
    items.push(...findingDataItems(scan, findings));
    for (const { uri } of findings)
      counted.push({
        alert: records[i],
        findingHash: uri.findingHash,
        uri: uri.uri,
        requestMethod: uri.requestMethod,
        param: uri.param ?? '',
      });
  });
  return { records, items, counted };
}

/**
 * Findings, first/last seen and triage figures from the environment's rules now (as a scan's completion), and the
 * records they replace, added to what is `known` (earlier attempts): read while the scan's data is written (they
 * read none of it).
 */
async function readBeforeRecording(
  scan: ScanRecord,
  data: ReturnType<typeof scanData>,
  budget: Budget,
  attempt: string,
  known: FindingsBefore | undefined,
) {
  const { applicationId: appId, envName } = scan;
  const reading = 'reading the findings before recording them';
  const found = await withinBudget(budget, appId, envName, reading, () =>
    findingsOfScan(scan, data.records, data.counted),
  );
  // An import completes as its stream's latest scan: it decides which of its stream's findings are fixed.
  const trend = await withinBudget(budget, appId, envName, reading, () =>
    publicationTrend(scan, found, scan.stream, budget.clock.now()),
  );
  const hashes = trend.records.map((f) => f.findingHash);
  const before = await withinBudget(budget, appId, envName, reading, () =>
    findingsBefore(scan, hashes, known, attempt),
  );
  return { found, trend, before };
}

/** Writes the alerts, URIs and messages of the unpublished scan; 413 past the budget. */
async function storeFindings(
  scan: ScanRecord,
  items: Record<string, unknown>[],
  budget: Budget,
  hooks: ImportHooks,
): Promise<void> {
  // The alerts' items come first, then each finding's URI and message.
  const alerts = items.filter((item) => item.entity === 'scanAlert').length;
  const findings = (items.length - alerts) / 2;
  await timedWrite(
    budget,
    scan.applicationId,
    scan.envName,
    (written) => `${Math.max(0, Math.floor((written - alerts) / 2))} of ${findings} findings stored`,
    (signal, check) => batchPut(items, IMPORT_LIMITS.writeConcurrency, signal, check),
  );
  await hooks.step?.('stored');
}

/**
 * The writes after the findings' records, before publishing: the issues' triage carried to the scan's new detections,
 * then the scan's digest (scan-digest.ts), its unpublished data's last write; 413 past the budget.
 */
async function carryRulesAndDigest(
  scan: ScanRecord,
  found: Awaited<ReturnType<typeof findingsOfScan>>,
  alerts: AlertRecord[],
  budget: Budget,
): Promise<void> {
  const { applicationId: appId, envName } = scan;
  await timedWrite(
    budget,
    appId,
    envName,
    () => "carrying the issues' triage",
    (signal) => carryIssueRules(scan, found.carried, signal),
  );
  await timedWrite(
    budget,
    appId,
    envName,
    () => 'all findings stored, not yet published',
    (signal) => putScanDigest(scan, found.findings, alerts, found.templates, signal),
  );
}

/** Records the scan's findings in the environment; 413 past the budget. */
async function recordFindingsBy(
  scan: ScanRecord,
  findings: FindingRecord[],
  before: FindingsBefore,
  budget: Budget,
  hooks: ImportHooks,
): Promise<void> {
  await timedWrite(
    budget,
    scan.applicationId,
    scan.envName,
    (written) => `${written} of ${findings.length} findings recorded`,
    (signal, beforeCall) =>
      recordFindings(scan, findings, before, signal, { concurrency: IMPORT_LIMITS.writeConcurrency, beforeCall }),
  );
  await hooks.step?.('recorded');
}

/**
 * The publishing transaction's items: the pending write's end, the scan, the environment created or its last-scan
 * fields (the environment read now), the triage version read, and the audit entries.
 */
async function publication(
  caller: Caller,
  app: ApplicationRecord,
  envName: string,
  done: ScanRecord,
  newEnv: EnvironmentRecord | undefined,
  triageVersion: number,
  attempt: string,
  openIssues: OpenIssueCounts,
): Promise<{ env: EnvironmentRecord; items: TransactItem[] }> {
  const appId = done.applicationId;
  let env: EnvironmentRecord | undefined;
  const items = [pendingFindingsEnd(appId, attempt)];
  // The import is its environment's last scan and its stream's latest (docs/DATA-MODEL.md, Tool streams).
  const head = { [done.stream!]: headOf(done) };
  if (newEnv) {
    env = { ...newEnv, ...scanFieldsOf(lastScanOf(done), head), ...openIssues };
    items.push(...(await environmentCreationWrites(caller, app, envName, undefined, env)).items);
  } else {
    env = await getEnvironment(appId, done.environmentId);
    if (!env) throw notFound(`environment ${envName} was deleted meanwhile: nothing was imported`);
    const streams = { ...(await currentStreams(env)), ...head };
    items.push(...(await environmentScanWrites(env, { lastScan: lastScanOf(done), streams, openIssues })));
  }
  const payload = {
    scanId: done.scanId,
    applicationId: appId,
    appName: app.name,
    envId: env.environmentId,
    envName: env.name,
  };
  items.push(
    ...scanStart(done, app),
    triageVersionCheck(done, triageVersion),
    auditEntry(caller, app.organizationId, 'SCAN_STARTED', payload, done.startedAt),
    auditEntry(caller, app.organizationId, 'SCAN_COMPLETED', { ...payload, status: 'COMPLETED' }, done.completedAt!),
  );
  return { env, items };
}

/** The imported scan's record: a completed scan of `env` (new or existing), as a scanner's report would make it. */
function importedScan(
  caller: Caller,
  app: ApplicationRecord,
  env: EnvironmentRecord,
  report: ImportedReport,
  configHash: string,
  startedAt: number,
): ScanRecord {
  const labels = importedScanLabels(report);
  return {
    scanId: randomUUID(),
    organizationId: app.organizationId,
    applicationId: app.applicationId,
    environmentId: env.environmentId,
    envName: env.name,
    status: 'COMPLETED',
    userId: caller.userId,
    startedAt,
    urlCount: urlCountOf(report),
    hawkscanVersion: labels.hawkscanVersion,
    host: report.host.slice(0, 2048),
    tags: labels.tags,
    configHash,
    scanType: 'DEFAULT',
    reportedUris: report.uriCount,
    stream: streamOfTool(report.tool, report.toolName),
  };
}

/** importScanReport's answer for the published scan `done`. */
function importAnswer(
  done: ScanRecord,
  app: ApplicationRecord,
  env: EnvironmentRecord,
  environmentCreated: boolean,
  report: ImportedReport,
  alertsImported: number,
) {
  return {
    scanId: done.scanId,
    envId: env.environmentId,
    envName: env.name,
    environmentCreated,
    configHash: done.configHash,
    scanResult: toScanResult(done, app, done.stats!),
    tool: report.tool,
    toolName: report.toolName,
    format: report.format,
    toolVersion: report.toolVersion,
    zapVersion: report.tool === 'zap' ? report.toolVersion : '',
    host: report.host,
    sites: report.sites,
    alertsImported,
    urisImported: report.uriCount,
    skipped: report.skipped,
  };
}

/**
 * Removes what an import that published nothing wrote, by `removal`: the environment's finding records put back (as
 * `before` recorded them), the scan's data, and the pending write unless a write cut in flight may still land
 * (`removePending` false: it stays for the sweep). A clean-up that fails or is cut short is left to the sweep.
 */
async function removeUnpublished(
  scan: ScanRecord,
  before: FindingsBefore | undefined,
  attempt: string,
  removePending: boolean,
  removal: AbortSignal,
  hooks: ImportHooks,
): Promise<void> {
  const data = keys.dataOfScan(scan.applicationId, scan.environmentId, scan.scanId);
  try {
    if (before) await restoreFindings(scan, before, removal);
    await hooks.step?.('restored');
    await deleteFound(
      { partition: data.pk, skPrefix: data.skPrefix },
      undefined,
      IMPORT_LIMITS.writeConcurrency,
      removal,
    );
    if (removePending) await pendingFindingsRemove(scan.applicationId, attempt, removal);
  } catch (cleanup) {
    logger.warn('import clean-up left to the sweep', {
      appId: scan.applicationId,
      scanId: scan.scanId,
      cut: removal.aborted,
      cleanup,
    });
  }
}

/**
 * The deadline of an import starting now in a function with `remainingMs` left: the budget, or less when the
 * function has less time than the budget and the removal allowance need (and a second to answer), so that the 413
 * comes before the function's own end.
 */
export const importDeadline = (remainingMs: number, now = Date.now()) =>
  now + Math.max(0, Math.min(IMPORT_LIMITS.budgetMs, remainingMs - IMPORT_LIMITS.removalAllowanceMs - 1000));

/** `format`: the tool named by the caller, else recognised. `deadline` (ms): the whole request up to the publishing transaction, so that it answers within API Gateway's 29 s. */
export async function importScanReport(
  caller: Caller,
  appId: string,
  envName: string,
  body: Buffer,
  deadline?: number,
  format?: string,
  hooks: ImportHooks = {},
) {
  const clock = hooks.clock ?? realClock;
  const due = deadline ?? clock.now() + IMPORT_LIMITS.budgetMs;
  // Authorized (permission, the application's existence and team) before the report is parsed.
  let { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  const { report, alerts } = readReport(body, appId, envName, format);
  const budget: Budget = { deadline: due, writingMs: 0, clock, signal: clock.cutAt(due) };
  checkBudget(budget, appId, envName, 'reading the report');
  // What earlier imports or completions in the application left when they were stopped (a crash, a timeout), for a
  // bounded share of the budget: the rest is left to the next request.
  await sweepPendingFindings(appId, clock.now(), clock.cutAt(Math.min(due, clock.now() + PENDING_SWEEP_MS)));
  const configText = importedScanConfig(appId, envName, report);
  const configHash = configHashOf(configText);
  const existing = await withinBudget(budget, appId, envName, 'storing the scan configuration', async () => {
    await storeScanConfig(appId, configHash, configText, parseScanConfig(configText));
    return getEnvironmentByName(appId, envName);
  });
  const newEnv = existing ? undefined : newEnvironment(app, envName);
  const startedAt = clock.now();
  const scan = importedScan(caller, app, existing ?? newEnv!, report, configHash, startedAt);
  // Registered before the first write: until the publishing transaction ends it, readers see none of this
  // request's finding records, and if the request is stopped a later sweep removes what it wrote.
  // A pending write cut in flight may land: it then expires with nothing of its own, and a sweep removes it.
  const attempt = randomUUID();
  await withinBudget(budget, appId, envName, 'starting to store', () =>
    pendingFindingsStart(appId, {
      attempt,
      environmentId: scan.environmentId,
      scanId: scan.scanId,
      kind: 'import',
      expiresAt: startedAt + PENDING_WRITE_EXPIRY_MS,
    }),
  );
  let before: FindingsBefore | undefined;
  try {
    await hooks.step?.('pending');
    const data = scanData(scan, alerts);
    const records = data.records;
    const readBefore = (known: FindingsBefore | undefined) => readBeforeRecording(scan, data, budget, attempt, known);
    // Both run to their end before a failure is answered: the removal then finds every item written.
    const [stored, first] = await Promise.allSettled([
      storeFindings(scan, data.items, budget, hooks),
      readBefore(undefined),
    ]);
    if (stored.status === 'rejected') throw stored.reason;
    if (first.status === 'rejected') throw first.reason;
    before = first.value.before;
    // A scan of the environment started or a finding was triaged meanwhile, the application's environment count
    // changed, or another request created the environment: read again (a failed condition at any item but the
    // first, whose failure means a sweep took this request for dead).
    return await retryOnConflict({ conflict: failedCondition() }, async (attempts) => {
      let read = first.value;
      if (attempts > 1) {
        const progress = 'all findings stored, not yet published';
        const fresh = await withinBudget(budget, appId, envName, progress, () => getApplication(appId));
        if (!fresh) throw notFound(`application ${appId} not found`);
        app = fresh;
        if (
          newEnv &&
          (await withinBudget(budget, appId, envName, progress, () => getEnvironmentByName(appId, envName)))
        ) {
          throw conflict(
            `environment ${envName} was created by another request meanwhile: nothing was imported; send the report again`,
          );
        }
        read = await readBefore(before);
        before = read.before;
      }
      const { found, trend } = read;
      await recordFindingsBy(scan, trend.records, read.before, budget, hooks);
      await carryRulesAndDigest(scan, found, records, budget);
      const completedAt = clock.now();
      const done: ScanRecord = {
        ...scan,
        completedAt,
        durationSeconds: Math.round((completedAt - startedAt) / 1000),
        stats: { ...statsOf(records), ...found.stats },
      };
      const { env, items } = await withinBudget(budget, appId, envName, 'all findings stored, not yet published', () =>
        publication(caller, app, envName, done, newEnv, found.triageVersion, attempt, trend.openIssues),
      );
      items.push(...trend.items);
      checkBudget(budget, appId, envName, 'all findings stored, not yet published');
      await hooks.step?.('publishing');
      try {
        await transactWrite(items);
      } catch (error) {
        // A sweep took this request for dead: what it wrote is being removed.
        if (conditionFailed(error, 'pendingSwept')) throw overBudget(appId, envName, 'not yet published');
        throw error;
      }
      return importAnswer(done, app, env, !!newEnv, report, alerts.length);
    });
  } catch (error) {
    // Nothing was published: put the environment's finding records back and remove the unreachable data, by
    // IMPORT_LIMITS.removalAllowanceMs after the deadline whenever the failure came (checkBudget kept room for it;
    // several deletes in flight). What a write cut in flight may still land after the removal, or what a removal cut
    // short or failing leaves, stays under the pending write, which the next import or completion in the
    // application sweeps once expired: the answer is this request's own failure either way, never the clean-up's.
    const removal = clock.cutAt(due + IMPORT_LIMITS.removalAllowanceMs);
    await removeUnpublished(scan, before, attempt, !(error as { cutWrite?: boolean }).cutWrite, removal, hooks);
    throw error;
  }
}
