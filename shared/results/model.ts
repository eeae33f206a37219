import type { ScanType } from '../applications/model.ts';
import type { Severity } from '../input/severities.ts';
import type { TriageStats, TriageStatus } from './statuses.ts';

// The records of what scans found (docs/DATA-MODEL.md, Scans and Findings): scans, their alerts and URIs, findings
// and their triage rules, as stored. Their reads and writes are in scan-repository.ts and finding-repository.ts.

export type ScanStatus = 'STARTED' | 'COMPLETED' | 'ERROR';

/** Aggregates of a scan's alerts: computed from the alert items, frozen on the scan when it ends. */
export interface ScanStats extends Partial<TriageStats> {
  /** Alert URIs (findings). */
  totalAlerts: number;
  /** Alerts (distinct plugins). */
  uniqueAlerts: number;
  urisBySeverity: Record<Severity, number>;
  alertsBySeverity: Record<Severity, number>;
  // byStatus, byPluginStatus (TriageStats): set when the scan ends, kept current by triage while it is its
  // environment's last scan; absent while it runs (every finding then counts as UNKNOWN).
}

export interface ScanRecord {
  scanId: string;
  organizationId: string;
  applicationId: string;
  environmentId: string;
  /** The environment's name when the scan started. */
  envName: string;
  status: ScanStatus;
  /** The user who reported the scan. */
  userId: string;
  /** Milliseconds since the epoch. */
  startedAt: number;
  completedAt?: number;
  durationSeconds?: number;
  urlCount: number;
  hawkscanVersion: string;
  host: string;
  tags: { name: string; value: string }[];
  configHash: string;
  /** What its configuration scans (environment list's latestScanType); absent on scans recorded before it existed. */
  scanType?: ScanType;
  /** Its tool stream in its environment (streams.ts); absent on scans stored before streams: from its labels. */
  stream?: string;
  /** URIs counted so far (ADDed by each alerts request with its alert's uriCount): completion checks against it. */
  reportedUris: number;
  /** The ids of the findings reports counted that carried one (reportScanAlerts' `reportId`). */
  reportIds?: Set<string>;
  stats?: ScanStats;
  deleting?: boolean;
  /**
   * How many failed completions have started putting the environment's finding records back
   * (scanFindingsRestoreStart); a completion commits only if none started since it read the scan.
   */
  findingsRestores?: number;
}

export interface AlertRecord {
  pluginId: string;
  name: string;
  severity: Severity;
  description: string;
  cweId: string;
  references: string[];
  /** URIs counted (visible); atomic ADD with the scan's reportedUris. */
  uriCount: number;
  /** URI numbers handed out so far (>= uriCount; a request that failed or lost to completion leaves a gap). */
  nextUri: number;
  /**
   * The counted URI numbers as `[first, count]` ranges, one per report, appended in the transaction that counts
   * them: URIs outside them (written by a request that has not, or never, counted them) are invisible. Absent on
   * alerts stored before ranges existed: then every number below nextUri counts.
   */
  committed?: [number, number][];
}

/** A URI of a scan that one of its alerts counts. */
export interface CountedUri {
  alert: AlertRecord;
  findingHash: string;
  uri: string;
  requestMethod: string;
  param: string;
}

export interface AlertUriRecord {
  /** The URI's number within its alert (its sort key); counted only within the alert's committed ranges. */
  n: number;
  alertUriId: string;
  msgId: string;
  pluginId: string;
  uri: string;
  requestMethod: string;
  /** The parameter (also on the message): part of the finding's identity, read with the URIs when the scan ends. */
  param: string;
  findingHash: string;
}

export interface AlertMessageRecord extends Omit<AlertUriRecord, 'n'> {
  /** Its URI's number (absent on messages stored before ranges existed). */
  n?: number;
  evidence: string;
  otherInfo: string;
  requestHeader: string;
  requestBody: string;
  responseHeader: string;
  responseBody: string;
}

export interface ScanLocation {
  scanId: string;
  applicationId: string;
  environmentId: string;
}

/** One finding of an environment (by hash), as its scans saw it. Written when a scan that reported it ends. */
export interface FindingRecord {
  findingHash: string;
  pluginId: string;
  requestMethod: string;
  /** The normalized path (finding-identity.ts). */
  path: string;
  param: string;
  /** One literal URI of the finding, from the last scan that saw it. */
  uri: string;
  severity: Severity;
  /**
   * The issue it is a detection of (finding-identity.ts, issueId; docs/ISSUES.md): the findings of every tool with the
   * same weakness at the same place. Absent on records written before issues until the upgrade assigns it.
   */
  issueId?: string;
  /** Its alert's CWE id ('' when none), part of the issue's identity. */
  cweId?: string;
  /** ms: start of the first and of the last scan that reported it. */
  firstSeen: number;
  lastSeen: number;
  lastScanId: string;
  /** The tool stream of lastScanId (streams.ts): only a later scan of it fixes the finding. Absent before streams. */
  stream?: string;
  /** Its URIs in lastScanId (literal URIs that differ only in id-like segments are one finding). */
  lastScanUris: number;
  /**
   * ms: the start of the scan that made it current: its first sighting, or the scan that reported it again after a
   * fix (absent in records written before it was kept: the first sighting). Starts an overdue episode
   * (docs/GOVERNANCE.md, Overdue findings).
   */
  currentSince?: number;
  /**
   * ms: when a later completed scan of its stream found it gone (docs/GOVERNANCE.md, Trends; docs/DATA-MODEL.md, Tool
   * streams); absent while it is current. A later scan that reports it again clears it.
   */
  fixedAt?: number;
  /**
   * ms: when a retest found it gone (docs/HOSTED-SCANS.md, Retests): fixed and verified. A later scan that reports it
   * again writes the record anew, without it.
   */
  verifiedFixedAt?: number;
  /**
   * Who is to act on it (docs/API.md, Assignees; ours): a member of the organization, set by assignFindings; kept
   * while later scans detect it again (findings/scan-findings.ts).
   */
  assigneeId?: string;
  /** ms: when assigneeId was last set. */
  assignedAt?: number;
  /** The last retest's outcome: its id, STILL_PRESENT or FIXED, when, and what the engine saw (STILL_PRESENT). */
  lastRetest?: { retestId: string; status: 'STILL_PRESENT' | 'FIXED'; at: number; evidence: string };
  /** The completion (or import) request that wrote it (FindingsBefore.attempt): restoreFindings reverts only its own. */
  recordedBy?: string;
  /**
   * The record as it was before that request wrote it (null: there was none). While the request's pending write
   * exists (its scan not yet published), readers take this instead (resolvedFinding); a sweep puts it back.
   */
  previous?: FindingRecord | null;
}

/** A detection of an issue: one finding (by hash) of one tool stream that belongs to it (docs/ISSUES.md). */
export interface IssueDetection {
  issueId: string;
  findingHash: string;
  /** The finding's tool stream when it was recorded (streams.ts). */
  stream: string;
}

/**
 * A request that writes finding records before the transaction publishing its scan: registered before its first
 * write, deleted by that transaction (or once its records are put back). One left behind (a crash, a timeout that
 * stopped the function) hides those records from every reader, and a sweep after `expiresAt` puts them back, and
 * for an import removes the scan's unpublished items too.
 */
export interface PendingFindings {
  attempt: string;
  environmentId: string;
  scanId: string;
  /** `import`: nothing of the scan is published until the transaction; `completion`: the scan exists, STARTED. */
  kind: 'import' | 'completion';
  /** ms after which no request can still be running it (a sweep may then take over). */
  expiresAt: number;
  /** Set by the sweep that took it over: the publishing transaction then fails. */
  sweeping?: boolean;
}

export interface RuleHistoryEntry {
  operation: 'CREATE' | 'UPDATE';
  oldResult: TriageStatus;
  newResult: TriageStatus;
  note: string;
  userId: string;
  timestamp: number;
  /** ms: when an acceptance made by this change expires (RISK_ACCEPTED only; docs/GOVERNANCE.md). */
  expiresAt?: number;
  /** The change was the expiry of a risk acceptance, not a person's triage. */
  expired?: true;
}

/** The triage of a finding: applies to it in its environment's last scan and every later scan. */
export interface TriageRule {
  findingHash: string;
  status: TriageStatus;
  note: string;
  userId: string;
  /** ms of the last change. */
  updatedAt: number;
  /** Every change conditions on the version it read. */
  version: number;
  /** ms: while RISK_ACCEPTED, when the acceptance expires and the finding becomes untriaged again (docs/GOVERNANCE.md). */
  expiresAt?: number;
  /** Oldest first; at most MAX_RULE_HISTORY entries (the oldest are dropped). */
  history: RuleHistoryEntry[];
}

/**
 * The environment's records of these findings as they are before a scan records its own (recordFindings runs before
 * the scan's completion commits): what restoreFindings puts back if that commit does not happen.
 */
export interface FindingsBefore {
  scanId: string;
  /** This request's mark on the records it writes (recordedBy), so that its restore leaves other requests' records. */
  attempt: string;
  /** Records that existed, as they were. */
  previous: FindingRecord[];
  /** Hashes that had no record. */
  added: string[];
}
