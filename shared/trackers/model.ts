import type { AutoPromoteSeverity, TrackerKind } from './inputs.ts';

// The records of issue trackers (docs/TRACKERS.md): connections and the tickets of findings, as stored.

export interface TrackerRecord {
  trackerId: string;
  organizationId: string;
  kind: TrackerKind;
  name: string;
  /** Jira: the site (https://acme.atlassian.net, or the Server's base URL); GitHub: the REST API's URL. */
  baseUrl: string;
  /** Jira: the project's key or id. */
  project?: string;
  /** Jira: the issue type's name (Bug by default). */
  issueType?: string;
  /** GitHub: owner/repository. */
  repository?: string;
  /** Jira Cloud: the account whose API token this is. */
  email?: string;
  /** The API token or personal access token, sealed (shared/secrets/sealing.ts). */
  sealedToken: string;
  /** Every new finding at or above minSeverity (in these environments; none: all) is promoted to this tracker. */
  autoPromote?: { minSeverity: AutoPromoteSeverity; environmentIds: string[] };
  /** A ticket is closed after this many consecutive completed scans that no longer find its finding. */
  closeAfterScans: number;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
  /** Incremented by every change: writes are conditional on the revision they read. */
  revision: number;
}

/** OPEN: the issue is open as far as we know; CLOSED: closed by the service (fixed) or by people (read back). */
export type TicketState = 'CREATING' | 'OPEN' | 'CLOSED' | 'FAILED';

/** A finding's ticket: one per finding, in the tracker it was first promoted to. */
export interface TicketRecord {
  organizationId: string;
  applicationId: string;
  environmentId: string;
  findingHash: string;
  trackerId: string;
  kind: TrackerKind;
  state: TicketState;
  /** The tracker's id of the issue (Jira: the numeric id; GitHub: the issue number). */
  id?: string;
  /** Jira: PROJ-123; GitHub: owner/repo#12. */
  key?: string;
  /** Where people open it. */
  url?: string;
  /** The issue's status as last read (Jira: the status's name; GitHub: open or closed). */
  issueStatus?: string;
  /** Who closed it: the service when the finding was fixed, or people (read back from the tracker). */
  closedBy?: 'service' | 'people';
  /** How it was closed: done, not planned (won't do, declined...) or invalid (not a bug, cannot reproduce). */
  resolution?: 'done' | 'notPlanned' | 'invalid';
  /** Consecutive completed scans that did not find the finding since the last that did. */
  missedScans: number;
  /** The last completed scan counted (each counts once, and none older than it). */
  lastScanId?: string;
  lastScanStartedAt?: number;
  /** Why the last attempt failed for good (bad credentials, a refused address...): never a credential. */
  error?: string;
  /** The queue message holding the CREATING claim. */
  claimedBy?: string;
  createdAt: number;
  updatedAt: number;
  version: number;
}
