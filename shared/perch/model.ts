import type { Caller } from '../context/caller.ts';
import type { TransactItem } from '../db/transactions.ts';

// The records of hosted scans (docs/HOSTED-SCANS.md): runs, their states and errors, and the agents' devices, as stored.

/** QUEUED: waiting for an agent; RUNNING: an agent took it (from its acknowledgement to its end). */
export type RunState = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'ERROR' | 'STOPPED';

export interface RunError {
  errorType: 'UNKNOWN' | 'AUTHENTICATION' | 'PROVISIONING' | 'DEVICE';
  message: string;
}

export interface PerchRun {
  applicationId: string;
  organizationId: string;
  /** The run's id (startScan's answer), also the id of its START command. */
  scanKey: string;
  /**
   * A profile scan (launchProfileScan, docs/PROFILE-SCANS.md) or a retest of one finding (retestFinding,
   * docs/HOSTED-SCANS.md, Retests) rather than a scan; absent: a scan.
   */
  kind?: 'PROFILE' | 'RETEST';
  /** A retest's finding: what the agent attacks, and only that. */
  retest?: RetestTarget;
  /** The id of its STOP command, once stopScan asked for one. */
  stopCommandId?: string;
  state: RunState;
  /** What the agent is doing: claimed, login, crawl and attack, reporting, ... (free text from the agent). */
  phase: string;
  envName: string;
  /** The scan configuration (stackhawk.yml) the run scans with. */
  config: string;
  /**
   * Which configuration that is, in words (the organization scan configuration nightly, the default configuration of
   * environment production, ...): the run's log and its scan name it. Absent on runs started before it was kept.
   */
  configuration?: string;
  /**
   * The stored scan secrets the run may receive, when fewer than its configuration references: a configuration sent
   * with the start by a caller who may not change some of them (sendableSecrets). Absent: every referenced one.
   */
  secretNames?: string[];
  targetUrl: string;
  /** The target was allowlisted by the organization: the agent may reach it at a private address. */
  allowPrivate: boolean;
  /** The scan policy (the application's when the scan started): the plugins whose engine checks do not run. */
  scanPolicy?: { name: string; excludePluginIds: string[] };
  userId: string;
  deviceId?: string;
  deviceName?: string;
  /** The reported scan (reportScanRunStarted), once the agent announced it. */
  scanId?: string;
  errors: RunError[];
  createdAt: number;
  updatedAt: number;
  endedAt?: number;
  /**
   * QUEUED: an agent must take it by then (else it ends in ERROR, PROVISIONING); from its acknowledgement on, the run
   * ends by then (the agent stops its engine).
   */
  deadlineAt: number;
  /** It counts against the organization's running scans (taken with it, released when it ends). */
  holdsSlot?: boolean;
  /**
   * The labels an agent must carry to take it (its application's when it started; docs/HOSTED-SCANS.md, Agent
   * pools); absent: any agent of the organization.
   */
  requiredLabels?: string[];
}

/** The finding a retest run attacks: its request (method, URL, parameter) and the plugin whose check found it. */
export interface RetestTarget {
  environmentId: string;
  findingHash: string;
  pluginId: string;
  method: string;
  /** The absolute URL, on the run's target. */
  url: string;
  param: string;
}

/** QUEUED until an agent takes its run; RUNNING until its run ends; then its outcome. */
export type RetestStatus = 'QUEUED' | 'RUNNING' | 'STILL_PRESENT' | 'FIXED' | 'ERROR';

/** A retest (`APP#<appId>` / `RETEST#<retestId>`): its run's scanKey is its id. */
export interface RetestRecord {
  retestId: string;
  applicationId: string;
  organizationId: string;
  environmentId: string;
  findingHash: string;
  status: RetestStatus;
  userId: string;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  /** STILL_PRESENT: what the engine saw this time; FIXED: what was tried; ERROR: why it has no outcome. */
  evidence: string;
}

export interface PerchDevice {
  deviceId: string;
  organizationId: string;
  name: string;
  /**
   * The user whose session registered it, its owner: only that user's sessions drive it (docs/HOSTED-SCANS.md,
   * Whose device it is), and it is offered only the runs of applications that user may see.
   */
  userId: string;
  engines: string[];
  /** Its labels (`key=value`, sorted), given when it registers: it takes only runs whose required labels it has. */
  labels?: string[];
  version: string;
  createdAt: number;
  lastHeartbeatAt: number;
  /** The run it is carrying out, if any. */
  scanKey?: string;
  applicationId?: string;
  /** When its last run ended and freed it (deviceRelease): a heartbeat since shows its agent polls idle. */
  releasedAt?: number;
  /** The last run it carried out, kept once that run ended (deviceRelease). */
  lastScanKey?: string;
  /**
   * A hosted runner's device: the run its launch token was issued for (Caller.launchedFor, a signed claim no other
   * agent has), set when it registers. Its task's stop finds it by this (shared/perch/runner-stops.ts).
   */
  launchedFor?: string;
}

/** Who drives a device: the session's user and, for a hosted runner's session, the run its token was issued for. */
export type DeviceDriver = Pick<Caller, 'userId' | 'launchedFor'>;

/**
 * What a start made by someone other than its caller adds (a schedule's, docs/HOSTED-SCANS.md, Schedules): details
 * of its SCAN_STARTED entry, and items written in the run's own transaction, built from the run.
 */
export interface StartedBy {
  details?: Record<string, unknown>;
  items?: (run: PerchRun) => TransactItem[];
}

export const ACTIVE_STATES: RunState[] = ['QUEUED', 'RUNNING'];

export const isActive = (run: Pick<PerchRun, 'state'>) => ACTIVE_STATES.includes(run.state);
