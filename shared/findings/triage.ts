import { transactWrite, MAX_TRANSACTION_ITEMS, type TransactItem } from '../db/transactions.ts';
import { auditEntries } from '../audit/entries.ts';
import { failedCondition, retryOnConflict } from '../db/retry.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { accessibleApplication } from '../applications/access.ts';
import { getEnvironment } from '../applications/environment-repository.ts';
import type { EnvironmentRecord, ApplicationRecord } from '../applications/model.ts';
import { getScan } from '../results/scan-repository.ts';
import { currentStreams } from '../results/streams.ts';
import {
  detectionsOfIssue,
  findingsOfEnvironment,
  getFinding,
  pendingAttempts,
  rulesOf,
  getTriageRule,
  sharedIssuesTest,
} from '../results/finding-repository.ts';
import {
  type FindingRecord,
  type IssueDetection,
  type ScanRecord,
  type TriageRule,
  type TriageStatus,
  MAX_RULE_HISTORY,
  resolvedFinding,
  normalizedPath,
  streamHeadedBy,
} from '../results/model.ts';
import { countingScan } from './scan-findings.ts';
import { MAX_TRIAGE_ACTIONS, type AlertRuleInput, type BulkTriageBody, type UpsertAlertRulesBody } from './inputs.ts';
import { environmentsOfUncounted, getApplication } from '../applications/application-repository.ts';
import { keys } from '../db/keys.ts';
import { batchGet } from '../db/query.ts';
import { fromItem } from '../db/items.ts';
import { derivedWrites, entityWrites } from '../db/entity-write.ts';
import { findingsTriage, triageRule } from './entities.ts';
import type { FindingsTriageContext, TriagedEnvironment } from './findings-triage.ts';
import { triageRuleWrite } from './rule-write.ts';
import type { TriageFiguresContext } from './projections/triage-figures.ts';
import type { Caller } from '../context/caller.ts';
import { getSlaPolicy } from '../governance/policy.ts';
import { acceptanceExpiry } from '../governance/model.ts';
import type { TrendTotal } from '../trends/model.ts';
import { environmentTrendTotal, trendsRead } from '../trends/writes.ts';
import { getTracker, ticketsOf } from '../trackers/repository.ts';
import { type TicketRecord } from '../trackers/model.ts';
import { type TriageOptions, type PromoteTo, toAlertRule } from './model.ts';

// Triage (docs/DATA-MODEL.md, Findings): a finding's rule lives in its environment and applies to the finding in
// the environment's last scan (whose figures change with it, at once) and in every later scan (matched when it ends).

/**
 * Runs `attempt` (which reads, plans and commits) again while its commit finds that what it read changed
 * (ConditionalCheckFailed): the rule, the environment's last scan or that scan's figures.
 */
function withFreshReads<T>(attempt: (n: number) => Promise<T>, conflictMessage: string): Promise<T> {
  const retry = { conflict: failedCondition(), exhausted: () => conflict(conflictMessage) };
  return retryOnConflict(retry, attempt);
}

/** Who triages: a user, or the service itself (`name`: what the audit entry calls it). */
type Actor = { userId: string; name?: string };

/** A finding's triage change, planned from what was read. */
interface TriageChange {
  env: EnvironmentRecord;
  finding: FindingRecord;
  before: TriageRule | undefined;
  after: TriageRule;
  /** The change is the expiry of the acceptance `before` (TriageOptions.expiring). */
  expired: boolean;
  /** The environment's trend total, read before the finding (the trends' writes are conditioned on its version). */
  trend: TrendTotal;
  promoteTo?: PromoteTo;
  /** Another detection of the triaged finding's issue, changed with it (docs/ISSUES.md, What an issue shares). */
  sibling?: true;
}

function triageChange(
  actor: Actor,
  env: EnvironmentRecord,
  finding: FindingRecord,
  before: TriageRule | undefined,
  to: TriageStatus,
  note: string,
  now: number,
  trend: TrendTotal,
  options: TriageOptions = {},
): TriageChange {
  const from = before?.status ?? 'UNKNOWN';
  // An acceptance keeps its expiry through comments; a new acceptance sets its own; other statuses have none.
  const expiresAt = to !== 'RISK_ACCEPTED' ? undefined : options.accept ? options.accept.expiresAt : before?.expiresAt;
  const expired = options.expiring !== undefined;
  const entry = {
    operation: before ? ('UPDATE' as const) : ('CREATE' as const),
    oldResult: from,
    newResult: to,
    note,
    userId: actor.userId,
    timestamp: now,
    ...(expiresAt !== undefined && { expiresAt }),
    ...(expired && { expired: true as const }),
  };
  const after: TriageRule = {
    findingHash: finding.findingHash,
    status: to,
    note,
    userId: actor.userId,
    updatedAt: now,
    version: (before?.version ?? 0) + 1,
    ...(expiresAt !== undefined && { expiresAt }),
    history: [...(before?.history ?? []), entry].slice(-MAX_RULE_HISTORY),
  };
  return {
    env,
    finding,
    before,
    after,
    expired,
    trend,
    ...(to === 'PROMOTED' && options.promoteTo && { promoteTo: options.promoteTo }),
  };
}

/**
 * The scan whose figures count each triage change's finding (scan-findings.ts countingScan), read only for a change
 * that moves its status, each scan once; and the environment's streams as read, for their untriaged figures.
 */
async function figuresOf(env: EnvironmentRecord, envChanges: TriageChange[], scans = scanReads()) {
  const streams = await currentStreams(env);
  const scanOf = (scanId: string) => scans(env, scanId);
  const contexts = new Map<TriageChange, TriageFiguresContext>();
  for (const c of envChanges) {
    const moved = (c.before?.status ?? 'UNKNOWN') !== c.after.status;
    const scan = moved ? await countingScan(streams, c.finding, scanOf) : undefined;
    contexts.set(c, { finding: c.finding, scan });
  }
  return { streams, contexts };
}

/** Reads a scan of an environment. */
type ScanReader = (env: EnvironmentRecord, scanId: string) => Promise<ScanRecord | undefined>;

/**
 * A reader of scans that reads each once (the scans whose figures a triage moves). A scan it found absent or being
 * deleted is read again when asked again: it may be taken by a later read (a bulk triage's next chunk) only while it
 * counts, and what it counts is a condition of the write (triage-figures.ts), so a scan that changed fails it.
 */
function scanReads(): ScanReader {
  const scans = new Map<string, Promise<ScanRecord | undefined>>();
  return (env, scanId) => {
    const key = `${env.environmentId}\n${scanId}`;
    let read = scans.get(key);
    if (!read) {
      read = getScan({ applicationId: env.applicationId, environmentId: env.environmentId, scanId });
      scans.set(key, read);
      read.then(
        (scan) => (!scan || scan.deleting) && scans.delete(key),
        () => scans.delete(key),
      );
    }
    return read;
  };
}

/** What a triage's caller read already for triageRead: the application (read early), a reader of scans. */
interface TriageReads {
  app?: Promise<ApplicationRecord | undefined>;
  scans?: ScanReader;
}

/** Each triage change's value, by environment id then finding hash. */
function byEnvironmentAndHash<T>(changes: TriageChange[], value: (c: TriageChange) => T) {
  const out = new Map<string, Map<string, T>>();
  for (const c of changes) {
    const inEnvironment = out.get(c.env.environmentId) ?? new Map<string, T>();
    out.set(c.env.environmentId, inEnvironment.set(c.finding.findingHash, value(c)));
  }
  return out;
}

/**
 * What the projections of a triage of the application's findings read (findings-triage.ts): for each environment,
 * its trends (from the total read before the findings), its streams and the scans whose figures count its changed
 * findings (figuresOf, whose contexts are kept in `figures` for the rules' own projections); the application as
 * read now when a scan counts one of them (its health moves with the streams), with its live environments when its
 * figures need them.
 */
async function triageRead(
  app: ApplicationRecord,
  changes: TriageChange[],
  now: number,
  figures: Map<TriageChange, TriageFiguresContext>,
  read: TriageReads = {},
): Promise<FindingsTriageContext> {
  // The application is read beside the scans when a change moves a status (only then may a scan count it).
  const moves = changes.some((c) => (c.before?.status ?? 'UNKNOWN') !== c.after.status);
  const appRead = moves ? (read.app ?? getApplication(app.applicationId)) : undefined;
  appRead?.catch(() => undefined); // awaited below when a scan counts a change
  const environments = new Map<string, TriagedEnvironment>();
  for (const envChanges of groupByEnvironment(changes)) {
    const env = envChanges[0]!.env;
    const [trends, { streams, contexts }] = await Promise.all([
      trendsRead(env, envChanges[0]!.trend),
      figuresOf(env, envChanges, read.scans),
    ]);
    const countingScans = new Map<string, string>();
    for (const [c, context] of contexts) {
      figures.set(c, context);
      if (context.scan) countingScans.set(c.finding.findingHash, context.scan.scanId);
    }
    const findings = new Map(envChanges.map((c) => [c.finding.findingHash, c.finding]));
    environments.set(env.environmentId, { env, findings, streams, countingScans, trends });
  }
  const counted = [...environments.values()].some((e) => e.countingScans.size > 0);
  const current = counted ? await appRead : undefined;
  if (counted && !current) throw notFound(`application ${app.applicationId} not found`);
  const live = current && (await environmentsOfUncounted(current));
  return { environments, app: current, live, now };
}

/** Triage changes grouped by environment, in order. */
function groupByEnvironment(changes: TriageChange[]): TriageChange[][] {
  const byEnvironment = new Map<string, TriageChange[]>();
  for (const c of changes)
    byEnvironment.set(c.env.environmentId, [...(byEnvironment.get(c.env.environmentId) ?? []), c]);
  return [...byEnvironment.values()];
}

/**
 * The writes of triage changes in one application, to commit in one transaction: the triage's own entities, each
 * finding's rule (the triageRule kind: its events, expiry entry, move in its scan's figures, the triage version),
 * with its ALERT_RULE_TRIAGED entry; and the triage of the application's findings they make together (the
 * findingsTriage kind: the streams' untriaged figures and the application's health, the trends, the overdue
 * check's entries). At most one change per finding.
 */
async function triageWrites(
  actor: Actor,
  app: ApplicationRecord,
  changes: TriageChange[],
  now: number,
): Promise<TransactItem[]> {
  const figures = new Map<TriageChange, TriageFiguresContext>();
  const context = await triageRead(app, changes, now, figures);
  return triagePlan(actor, app, changes, context, figures);
}

/**
 * What a triage read for some changes (triageRead), narrowed to `changes` among them: their findings and counting
 * scans; the application only when a scan counts one of them (as triageRead reads it).
 */
function narrowedRead(context: FindingsTriageContext, changes: TriageChange[]): FindingsTriageContext {
  const environments = new Map<string, TriagedEnvironment>();
  for (const envChanges of groupByEnvironment(changes)) {
    const read = context.environments.get(envChanges[0]!.env.environmentId)!;
    const hashes = new Set(envChanges.map((c) => c.finding.findingHash));
    environments.set(read.env.environmentId, {
      ...read,
      findings: new Map([...read.findings].filter(([hash]) => hashes.has(hash))),
      countingScans: new Map([...read.countingScans].filter(([hash]) => hashes.has(hash))),
    });
  }
  const counted = [...environments.values()].some((e) => e.countingScans.size > 0);
  return {
    environments,
    app: counted ? context.app : undefined,
    live: counted ? context.live : undefined,
    now: context.now,
  };
}

/** triageWrites from what was read (`context`, `figures`): no read of its own. */
function triagePlan(
  actor: Actor,
  app: ApplicationRecord,
  changes: TriageChange[],
  context: FindingsTriageContext,
  figures: Map<TriageChange, TriageFiguresContext>,
): TransactItem[] {
  const triage = derivedWrites(
    findingsTriage,
    { rules: byEnvironmentAndHash(changes, (c) => c.before) },
    { rules: byEnvironmentAndHash(changes, (c) => c.after) },
    context,
  );
  const audit = auditEntries(
    actor,
    app.organizationId,
    'ALERT_RULE_TRIAGED',
    changes.map(({ env, finding, before, after, expired }) => ({
      applicationId: app.applicationId,
      appName: app.name,
      envId: env.environmentId,
      envName: env.name,
      findingHash: finding.findingHash,
      pluginId: finding.pluginId,
      requestMethod: finding.requestMethod,
      path: finding.path,
      oldStatus: before?.status ?? 'UNKNOWN',
      newStatus: after.status,
      note: after.note,
      ...(after.expiresAt !== undefined && { expiresAt: new Date(after.expiresAt).toISOString() }),
      ...(expired && {
        riskAcceptanceExpired: true,
        acceptedBy: before!.userId,
        acceptedAt: new Date(before!.updatedAt).toISOString(),
        acceptedUntil: new Date(before!.expiresAt!).toISOString(),
        acceptanceNote: before!.note,
      }),
    })),
    context.now,
  );
  const rules = changes.map((c) => {
    const context = {
      organizationId: app.organizationId,
      applicationId: app.applicationId,
      environmentId: c.env.environmentId,
      app,
      envName: c.env.name,
      finding: c.finding,
      ...(c.promoteTo && { promoteTo: c.promoteTo }),
      ...(c.sibling && { sibling: c.sibling }),
    };
    return triageRuleWrite(c.before, c.after, context, {
      expiring: c.expired && !c.sibling,
      figures: figures.get(c)!,
    });
  });
  // One write for all the rules: the scans' figures they move are one Update per scan.
  return [...triage, ...entityWrites(triageRule, rules), ...audit];
}

/**
 * What issueSiblings may take as read already: the application's pending writes, issues' detections by issue id,
 * and which issues the environment's shared issues (read after the trends' total the write is conditioned on) do not
 * rule out (sharedIssuesTest): one ruled out has no detection but the finding's own, so no Query.
 */
interface SiblingReads {
  pending?: Promise<Set<string>>;
  detections?: ReadonlyMap<string, Promise<IssueDetection[]>>;
  mayBeShared?: (issueId: string) => boolean;
}

/**
 * The other detections of these findings' issues (docs/ISSUES.md), with their rules: a triage applies to the issue,
 * so to each of them. Findings recorded before issues (no issueId) have none.
 */
async function issueSiblings(
  env: EnvironmentRecord,
  findings: FindingRecord[],
  read: SiblingReads = {},
): Promise<{ finding: FindingRecord; rule: TriageRule | undefined }[]> {
  const issues = [...new Set(findings.flatMap((f) => (f.issueId ? [f.issueId] : [])))];
  if (issues.length === 0) return [];
  const own = new Set(findings.map((f) => f.findingHash));
  const detectionsOf = async (id: string) =>
    read.mayBeShared?.(id) === false ? [] : (read.detections?.get(id) ?? detectionsOfIssue(env, id));
  const detections = (await Promise.all(issues.map(detectionsOf))).flat();
  const hashes = [...new Set(detections.map((d) => d.findingHash).filter((h) => !own.has(h)))];
  if (hashes.length === 0) return [];
  const [records, rules, pending] = await Promise.all([
    batchGet(hashes.map((h) => keys.finding(env.applicationId, env.environmentId, h))),
    rulesOf(env, hashes),
    read.pending ?? pendingAttempts(env),
  ]);
  return records
    .flatMap((item) => resolvedFinding(fromItem<FindingRecord>(item)!, pending) ?? [])
    .filter((f) => f.issueId && issues.includes(f.issueId))
    .map((finding) => ({ finding, rule: rules.get(finding.findingHash) }));
}

/** The change of another detection of the issue: the same status and note, no ticket of its own. */
function siblingChange(
  actor: Actor,
  env: EnvironmentRecord,
  sibling: { finding: FindingRecord; rule: TriageRule | undefined },
  to: TriageStatus,
  note: string,
  now: number,
  trend: TrendTotal,
  options: TriageOptions,
): TriageChange {
  const { promoteTo: _ticket, ...rest } = options;
  return { ...triageChange(actor, env, sibling.finding, sibling.rule, to, note, now, trend, rest), sibling: true };
}

/**
 * Sets a finding's rule to `resolve(current status)` with `note`, atomically with what it changes (triageWrites).
 * Undefined when the environment never saw the finding; 'stale' when an expiry finds the acceptance changed.
 */
export async function triageFinding(
  actor: Actor,
  app: ApplicationRecord,
  envRef: EnvironmentRecord,
  findingHash: string,
  resolve: (current: TriageStatus) => TriageStatus,
  note: string,
  options: TriageOptions = {},
): Promise<{ rule: TriageRule; finding: FindingRecord } | 'stale' | undefined> {
  return withFreshReads(async () => {
    const trend = await environmentTrendTotal(envRef);
    const [finding, rule, env] = await Promise.all([
      getFinding(envRef, findingHash),
      getTriageRule(envRef, findingHash),
      getEnvironment(app.applicationId, envRef.environmentId),
    ]);
    if (!env) throw notFound(`environment ${envRef.environmentId} not found`);
    if (options.expiring !== undefined && !(rule?.status === 'RISK_ACCEPTED' && rule.expiresAt === options.expiring))
      return 'stale' as const;
    if (!finding) return undefined;
    const now = options.now ?? Date.now();
    const to = resolve(rule?.status ?? 'UNKNOWN');
    const change = triageChange(actor, env, finding, rule, to, note, now, trend, options);
    const siblings = (await issueSiblings(env, [finding])).filter(
      (s) =>
        options.expiring === undefined || (s.rule?.status === 'RISK_ACCEPTED' && s.rule.expiresAt === options.expiring),
    );
    const others = siblings.map((s) => siblingChange(actor, env, s, to, note, now, trend, options));
    await transactWrite(await triageWrites(actor, app, [change, ...others], now));
    return { rule: change.after, finding };
  }, `finding ${findingHash} is being changed concurrently; retry`);
}

/** One action of a bulk triage: its finding, the status its current one resolves to, its note and options. */
interface TriageAction {
  findingHash: string;
  resolve: (current: TriageStatus) => TriageStatus;
  note: string;
  options: TriageOptions;
}

/**
 * Who triages in which environment, at which time; the reader of scans its chunks share (a retried chunk reads them
 * again, with a new one).
 */
interface BulkTriage {
  actor: Actor;
  app: ApplicationRecord;
  envRef: EnvironmentRecord;
  now: number;
  scans: ScanReader;
  /**
   * The actions' findings' rules as this triage knows them (by hash): read before the chunks, with each committed
   * chunk's changes (each rule's write is conditioned on its version, so a rule changed meanwhile fails the chunk,
   * whose retry reads its rules again).
   */
  rules: Map<string, TriageRule>;
  /**
   * The trends' total the last committed chunk's write was conditioned on, when it had a version: a triage does not
   * move it (only publications and the delete do), so the next chunk's first attempt takes it, read before that
   * chunk's findings as its own read would be, rather than reading it again (a publication since fails its write,
   * whose retry reads it again).
   */
  trend?: TrendTotal;
}

/**
 * What a bulk triage read before its chunks, which its first chunk takes as its own first read: the trends' total,
 * then the findings (with the pending writes); the environment as the target's read found it, only to start reading
 * the scans that may count the findings (the chunk reads the environment again).
 */
interface FirstRead {
  trend: TrendTotal;
  records: FindingRecord[];
  pending: Promise<Set<string>>;
  env: EnvironmentRecord;
  /** The environment's shared issues, read after `trend` (sharedIssuesTest). */
  mayBeShared: (issueId: string) => boolean;
}

/**
 * Actions read together for one transaction: about as many as fit its items (each a rule, its event, its audit
 * entry, and an acceptance's expiry entry); a chunk commits the most of them that fit (triageChunk).
 */
const TRIAGE_CHUNK = 30;

/** Issues whose detections are read at once (a Query each) before the chunks. */
const ISSUE_READS_IN_FLIGHT = 16;

/**
 * Bulk triage of one environment's findings (bulkTriageFindings): the actions in request order, in consecutive
 * chunks each committed in one transaction with their audit entries, so that what they change together (the
 * environment's figures and trends, its last scans' figures, its application's health, the triage version) is
 * written once per chunk, not once per finding. A chunk ends before an action whose finding, or its issue, is
 * already in it (a later action sees the earlier one's rule). The findings' issues' detections are read once, before
 * the chunks (a Query per issue that the environment's shared issues, read after `trend`, do not rule out, a few at
 * a time; like every chunk's, that read conditions nothing; each later chunk reads the shared issues again after
 * its own trends' total, which its write is conditioned on, so an issue shared since is read then). Each chunk's
 * reads are batched (triageChunk); the first chunk takes the findings read here (after `trend`, the trends' total)
 * and the environment as read, every chunk the rules read here with the earlier chunks' changes. Returns each action's rule after it (undefined: the environment never saw the
 * finding).
 */
async function triageActions(
  bulk: BulkTriage,
  actions: TriageAction[],
  trend: TrendTotal,
): Promise<(TriageRule | undefined)[]> {
  const { envRef } = bulk;
  const pending = pendingAttempts(envRef);
  // After `trend`, as the findings: the first chunk's write is conditioned on its version, which a publication moves.
  const shared = sharedIssuesTest(envRef);
  const hashes = [...new Set(actions.map((a) => a.findingHash))];
  const [records, rules, mayBeShared] = await Promise.all([
    findingsByHash(envRef, hashes, pending),
    rulesOf(envRef, hashes, true),
    shared,
  ]);
  for (const [hash, rule] of rules) bulk.rules.set(hash, rule);
  let first: FirstRead | undefined = { trend, records, pending, env: envRef, mayBeShared };
  const issueOf = new Map(records.map((f) => [f.findingHash, f.issueId ?? f.findingHash]));
  const issueIds = new Map(records.flatMap((f) => (f.issueId ? [[f.findingHash, f.issueId]] : [])));
  // In the actions' order: the first chunk's issues are read first.
  const issues = [...new Set(actions.flatMap((a) => issueIds.get(a.findingHash) ?? []))];
  const detections = detectionReads(envRef, issues, mayBeShared);
  const out: (TriageRule | undefined)[] = [];
  let size = TRIAGE_CHUNK;
  while (out.length < actions.length) {
    const chunk: TriageAction[] = [];
    const touched = new Set<string>();
    for (const action of actions.slice(out.length, out.length + size)) {
      const marks = [action.findingHash, issueOf.get(action.findingHash) ?? action.findingHash];
      if (marks.some((m) => touched.has(m))) break;
      chunk.push(action);
      for (const m of marks) touched.add(m);
    }
    const applied = await triageChunk(bulk, chunk, detections, first);
    first = undefined;
    // Fewer fit one transaction: the next chunk reads no more than fitted.
    if (applied.length < chunk.length) size = applied.length;
    out.push(...applied);
  }
  return out;
}

/**
 * The detections of these issues, read in their order, ISSUE_READS_IN_FLIGHT at a time: the first chunk goes on
 * once its own issues are read, while the later chunks' are still being read. Only the issues the environment's
 * shared issues do not rule out (`mayBeShared`: sharedIssuesTest); a chunk reads the others only if its own read of
 * them finds them shared since (issueSiblings).
 */
function detectionReads(
  env: EnvironmentRecord,
  issues: string[],
  mayBeShared: (issueId: string) => boolean,
): Map<string, Promise<IssueDetection[]>> {
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const read = async (issueId: string) => {
    if (inFlight >= ISSUE_READS_IN_FLIGHT) await new Promise<void>((start) => waiting.push(start));
    inFlight += 1;
    try {
      return await detectionsOfIssue(env, issueId);
    } finally {
      inFlight -= 1;
      waiting.shift()?.();
    }
  };
  const reads = new Map(issues.filter(mayBeShared).map((id) => [id, read(id)]));
  for (const r of reads.values()) r.catch(() => undefined); // awaited by the chunks that need them
  return reads;
}

/**
 * The finding records of these hashes as readers see them (one strongly consistent BatchGetItem per 100), with the
 * application's pending writes (`pending`: as read already).
 */
async function findingsByHash(
  env: EnvironmentRecord,
  hashes: string[],
  pending: Promise<Set<string>> = pendingAttempts(env),
): Promise<FindingRecord[]> {
  const [items, attempts] = await Promise.all([
    batchGet(
      hashes.map((h) => keys.finding(env.applicationId, env.environmentId, h)),
      undefined,
      true,
    ),
    pending,
  ]);
  return items.flatMap((item) => resolvedFinding(fromItem<FindingRecord>(item)!, attempts) ?? []);
}

/**
 * The first actions of a chunk of triageActions in one transaction: as many as their writes fit (at least one; all
 * are read, the writes are planned from those reads for fewer). Returns the rules after the actions committed. Its
 * reads: the trends' total (on a later chunk's first attempt, the one the chunk before was conditioned on:
 * BulkTriage.trend), then in one round trip the findings, the environment, its shared issues (the detections
 * of an issue they count shared that triageActions did not read are read then) and
 * (when a known rule's status moves) the application, then the scans counting them (read once for all chunks); its rules as the triage knows
 * them (BulkTriage.rules); `first`: the trends' total and findings read before the chunks, taken by the chunk's
 * first attempt (a retry reads all again, its rules too).
 */
async function triageChunk(
  bulk: BulkTriage,
  actions: TriageAction[],
  detections: ReadonlyMap<string, Promise<IssueDetection[]>>,
  first?: FirstRead,
): Promise<(TriageRule | undefined)[]> {
  const { actor, app, envRef, now } = bulk;
  return withFreshReads(async (attempt) => {
    const taken = attempt === 1 ? first : undefined;
    if (attempt > 1) bulk.scans = scanReads();
    const known = attempt === 1 ? (taken?.trend ?? bulk.trend) : undefined;
    const trend = known ?? (await environmentTrendTotal(envRef)); // before the findings
    const hashes = actions.map((a) => a.findingHash);
    const pending = taken?.pending ?? pendingAttempts(envRef);
    const knownRules = attempt === 1 ? bulk.rules : undefined; // a retry reads the rules again
    // When a known rule's status moves, the application (and, first, the scans counting the findings) are read
    // beside the findings: only then may a scan count a change (triageRead reads them itself otherwise).
    const moves = actions.some((a) => {
      const from = knownRules?.get(a.findingHash)?.status ?? 'UNKNOWN';
      return knownRules !== undefined && a.resolve(from) !== from;
    });
    const appRead = moves ? getApplication(app.applicationId) : undefined;
    appRead?.catch(() => undefined); // awaited by triageRead when a change moves a status
    if (taken && moves) readCountingScans(bulk.scans, taken.env, taken.records);
    const [records, rules, env, mayBeShared] = await Promise.all([
      taken?.records ?? findingsByHash(envRef, hashes, pending),
      knownRules ?? rulesOf(envRef, hashes, true),
      // Read again in this round trip, not taken: streams changed since the target's read (a publication) must
      // decide which scan counts the change.
      getEnvironment(app.applicationId, envRef.environmentId),
      // After this chunk's trends' total, as its findings: a publication since would fail its write.
      taken?.mayBeShared ?? sharedIssuesTest(envRef),
    ]);
    if (!env) throw notFound(`environment ${envRef.environmentId} not found`);
    const found = new Map(records.map((f) => [f.findingHash, f]));
    const own = new Set(hashes);
    const siblings = await issueSiblings(
      env,
      records.filter((f) => own.has(f.findingHash)),
      { pending, detections, mayBeShared },
    );
    // Each action's changes: its finding's, then its issue's other detections'.
    const planned = actions.map((action) => {
      const finding = found.get(action.findingHash);
      if (!finding) return { after: undefined, changes: [] };
      const rule = rules.get(action.findingHash);
      const to = action.resolve(rule?.status ?? 'UNKNOWN');
      const change = triageChange(actor, env, finding, rule, to, action.note, now, trend, action.options);
      const others = siblings
        .filter((s) => finding.issueId && s.finding.issueId === finding.issueId)
        .map((s) => siblingChange(actor, env, s, to, action.note, now, trend, action.options));
      return { after: change.after, changes: [change, ...others] };
    });
    const all = planned.flatMap((p) => p.changes);
    const figures = new Map<TriageChange, TriageFiguresContext>();
    const reads = { app: appRead, scans: bulk.scans };
    const context = all.length ? await triageRead(app, all, now, figures, reads) : undefined;
    for (let fit = planned.length; ; fit--) {
      const changes = planned.slice(0, fit).flatMap((p) => p.changes);
      const items = changes.length ? triagePlan(actor, app, changes, narrowedRead(context!, changes), figures) : [];
      if (items.length > MAX_TRANSACTION_ITEMS && fit > 1) continue;
      if (items.length) await transactWrite(items);
      bulk.trend = trend.version !== undefined ? trend : undefined;
      for (const c of changes) bulk.rules.set(c.finding.findingHash, c.after);
      return planned.slice(0, fit).map((p) => p.after);
    }
  }, `findings of environment ${envRef.environmentId} are being changed concurrently; retry`);
}

/**
 * Starts reading the scans that may count these findings (their last scans, while they head one of the
 * environment's streams and the finding is not fixed: scan-findings.ts countingScan), beside the application.
 */
function readCountingScans(scans: ScanReader, env: EnvironmentRecord, findings: FindingRecord[]): void {
  const heads = new Set(
    findings
      .filter((f) => f.fixedAt === undefined && streamHeadedBy(env.streams ?? {}, f.lastScanId) !== undefined)
      .map((f) => f.lastScanId),
  );
  for (const scanId of heads) scans(env, scanId).catch(() => undefined); // awaited by countingScan
}

/** The application and environment a triage operation addresses (team rules as for the application). */
export async function triageTarget(caller: Caller, appId: string, envId: string, orgId?: string) {
  // Read beside the application's (its key is the path's), answered only once the caller may see the application.
  const envRead = getEnvironment(appId, envId);
  envRead.catch(() => undefined); // awaited below unless access is refused
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  if (orgId && app.organizationId !== orgId) throw notFound(`application ${appId} not found`);
  const env = await envRead;
  if (!env) throw notFound(`environment ${envId} not found`);
  return { app, env };
}

/** A comment keeps a triaged finding's status; on an untriaged one it shows as ADD_COMMENT (still untriaged). */
const statusAfter =
  (action: BulkTriageBody['actions'][number]['status']) =>
  (current: TriageStatus): TriageStatus =>
    action !== 'ADD_COMMENT' ? action : current === 'UNKNOWN' ? 'ADD_COMMENT' : current;

/**
 * POST /api/v1/org/{orgId}/app/{appId}/env/{envId}/findings/triage: the actions in request order, committed in
 * chunks (triageActions), each action atomically with its audit entry; a finding the environment never saw fails
 * alone (`success: false`).
 */
export async function bulkTriageFindings(
  caller: Caller,
  orgId: string,
  appId: string,
  envId: string,
  body: BulkTriageBody,
) {
  for (const [field, value, expected] of [
    ['organizationId', body.organizationId, orgId],
    ['applicationId', body.applicationId, appId],
    ['environmentId', body.environmentId, envId],
  ]) {
    if (value && value.toLowerCase() !== expected)
      throw badRequest(`body.${field}: must be the path's ${field} (${expected}) or absent`);
  }
  // Read beside the target's: the organization's policy, and the trends' total, read before the findings
  // (triageActions), of the addressed environment (triageTarget refuses any other).
  const policyRead = body.actions.some((a) => a.status === 'RISK_ACCEPTED') ? getSlaPolicy(orgId) : undefined;
  const trendRead = environmentTrendTotal({ organizationId: orgId, applicationId: appId, environmentId: envId });
  for (const read of [policyRead, trendRead]) read?.catch(() => undefined); // awaited once the target is found
  const { app, env } = await triageTarget(caller, appId, envId, orgId);
  // Every acceptance's expiry is checked against the organization's policy before anything is written.
  const now = Date.now();
  const policy = await policyRead;
  const expiries = body.actions.map((action, i) =>
    action.status === 'RISK_ACCEPTED'
      ? { expiresAt: acceptanceExpiry(policy!, action.expiresAt, now, `actions[${i}].expiresAt`) }
      : undefined,
  );
  const applied = await triageActions(
    { actor: caller, app, envRef: env, now, scans: scanReads(), rules: new Map() },
    body.actions.map((action, i) => ({
      findingHash: action.findingHash,
      resolve: statusAfter(action.status),
      note: action.note,
      options: { accept: expiries[i], now },
    })),
    await trendRead,
  );
  const results = [];
  for (const [i, action] of body.actions.entries()) {
    results.push(
      applied[i]
        ? {
            findingHash: action.findingHash,
            success: true,
            status: applied[i]!.status,
            note: applied[i]!.note,
            updatedAt: new Date(applied[i]!.updatedAt).toISOString(),
            expiresAt: applied[i]!.expiresAt ? new Date(applied[i]!.expiresAt!).toISOString() : '',
          }
        : {
            findingHash: action.findingHash,
            success: false,
            error: `finding ${action.findingHash} not found in environment ${envId}`,
          },
    );
  }
  return { organizationId: orgId, applicationId: appId, environmentId: envId, results };
}

/** The tickets the changed findings' issues have already (by environment and hash). */
async function ticketsOfChanges(changes: TriageChange[]) {
  const byEnvironment = new Map<string, TriageChange[]>();
  for (const c of changes)
    byEnvironment.set(c.env.environmentId, [...(byEnvironment.get(c.env.environmentId) ?? []), c]);
  const out = new Map<string, TicketRecord>();
  for (const envChanges of byEnvironment.values()) {
    const env = envChanges[0]!.env;
    const tickets = await ticketsOf(
      env,
      envChanges.map((c) => c.finding),
    );
    for (const [hash, ticket] of tickets) out.set(`${env.environmentId}\n${hash}`, ticket);
  }
  return out;
}

/** What a rule addresses: its plugin and method at its path (parameterized or literal), any parameter. */
const ruleTarget = (pluginId: string, requestMethod: string, path: string) => `${pluginId}\n${requestMethod}\n${path}`;

/**
 * The environment's findings by rule target: one read of the environment however many rules address it (reading
 * it once per rule made 50 rules on 4,000 findings take seconds).
 */
async function findingsByTarget(env: EnvironmentRecord): Promise<Map<string, FindingRecord[]>> {
  const byTarget = new Map<string, FindingRecord[]>();
  for await (const finding of findingsOfEnvironment(env)) {
    const target = ruleTarget(finding.pluginId!, finding.requestMethod!, finding.path!);
    const list = byTarget.get(target);
    if (list) list.push(finding as FindingRecord);
    else byTarget.set(target, [finding as FindingRecord]);
  }
  return byTarget;
}

/**
 * POST /api/v1/app/{appId}/alerts/rules/{integrationId} (January 2026): the same rules addressed by environment,
 * plugin, method and path. Every rule must match a finding the environment saw (404 otherwise, nothing changed);
 * then each matched finding's rule is set like a bulk-triage action. `integrationId` names the caller's
 * integration; rules are stored per finding whatever it is. Each addressed environment is read once, and every
 * check (the path's application, each rule's match, the findings' count) passes before anything is written.
 */
export async function upsertAlertRules(
  caller: Caller,
  appId: string,
  integrationId: string,
  body: UpsertAlertRulesBody,
) {
  const inputs = [...(body.alertRuleWrapper?.alertRule ?? []), ...body.alertRules];
  for (const input of inputs) {
    if (input.alertCondition.applicationId && input.alertCondition.applicationId.toLowerCase() !== appId) {
      throw badRequest(`alertCondition.applicationId: must be the path's appId (${appId}) or absent`);
    }
  }
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  // A PROMOTED rule whose integrationId names one of the organization's tracker connections asks for a ticket
  // there (docs/TRACKERS.md, Promoting); any other integrationId only sets the status.
  const tracker = inputs.some((i) => i.result === 'PROMOTED')
    ? await getTracker(app.organizationId, integrationId.toLowerCase())
    : undefined;
  const details = body.alertRuleWrapper?.alertRulePromotionDetails;
  const promoteTo: PromoteTo | undefined =
    tracker && tracker.enabled
      ? {
          trackerId: tracker.trackerId,
          ...(details?.summary && { summary: details.summary }),
          ...(details?.description && { description: details.description }),
        }
      : undefined;
  return withFreshReads(async () => {
    const environments = new Map<
      string,
      Promise<{ env: EnvironmentRecord; findings: Map<string, FindingRecord[]>; trend: TrendTotal }>
    >();
    const environment = (envId: string) => {
      let read = environments.get(envId);
      if (!read) {
        read = getEnvironment(appId, envId).then(async (env) => {
          if (!env) throw notFound(`environment ${envId} not found`);
          const trend = await environmentTrendTotal(env); // before its findings
          return { env, findings: await findingsByTarget(env), trend };
        });
        read.catch(() => undefined); // awaited below, in rule order
        environments.set(envId, read);
      }
      return read;
    };
    // A finding that several rules match takes the last one's result and note.
    const planned = new Map<
      string,
      { env: EnvironmentRecord; finding: FindingRecord; input: AlertRuleInput; trend: TrendTotal; sibling?: true }
    >();
    for (const input of inputs) {
      const { env, findings, trend } = await environment(input.alertCondition.environmentId.toLowerCase());
      const { pluginId, requestMethod } = input.alertCondition;
      const path = input.parameterizedPath || input.path;
      const matches = findings.get(ruleTarget(pluginId, requestMethod, normalizedPath(path))) ?? [];
      if (matches.length === 0)
        throw notFound(
          `no finding of plugin ${pluginId} at ${requestMethod} ${path} in environment ${env.environmentId}`,
        );
      for (const finding of matches)
        planned.set(`${env.environmentId}\n${finding.findingHash}`, { env, finding, input, trend });
    }
    // Each matched finding's issue changes with it (docs/ISSUES.md, What an issue shares).
    for (const p of [...planned.values()])
      for (const s of await issueSiblings(p.env, [p.finding])) {
        const key = `${p.env.environmentId}\n${s.finding.findingHash}`;
        if (!planned.has(key)) planned.set(key, { ...p, finding: s.finding, sibling: true });
      }
    if (planned.size > MAX_TRIAGE_ACTIONS)
      throw badRequest(`the rules match ${planned.size} findings; at most ${MAX_TRIAGE_ACTIONS} per request`);
    // An acceptance here names no expiry: the organization's default (or maximum) applies.
    const now = Date.now();
    const accepting = [...planned.values()].some((p) => p.input.result === 'RISK_ACCEPTED');
    const accept = accepting
      ? { expiresAt: acceptanceExpiry(await getSlaPolicy(app.organizationId), undefined, now, '') }
      : undefined;
    const changes = await Promise.all(
      [...planned.values()].map(async ({ env, finding, input, trend, sibling }) => ({
        ...triageChange(
          caller,
          env,
          finding,
          await getTriageRule(env, finding.findingHash),
          input.result,
          input.note,
          now,
          trend,
          { accept: input.result === 'RISK_ACCEPTED' ? accept : undefined, ...(!sibling && { promoteTo }) },
        ),
        ...(sibling && { sibling }),
      })),
    );
    const items = await triageWrites(caller, app, changes, now);
    if (items.length > MAX_TRANSACTION_ITEMS)
      throw badRequest(
        `the rules change ${changes.length} findings, which takes ${items.length} writes; at most ` +
          `${MAX_TRANSACTION_ITEMS} land together in one request: send fewer rules per request`,
      );
    await transactWrite(items);
    const tickets = await ticketsOfChanges(changes);
    return {
      alertRules: changes
        .filter((c) => !c.sibling)
        .map(({ env, finding, after, promoteTo: promoted }) =>
          toAlertRule(
            env,
            finding,
            after,
            tickets.get(`${env.environmentId}\n${finding.findingHash}`),
            promoted && tracker,
          ),
        ),
      isSuccess: true,
      errorMessage: '',
    };
  }, `the findings of these rules are being changed concurrently; retry`);
}
