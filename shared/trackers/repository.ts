import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { batchGet, getItem, queryAll } from '../db/query.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { AutoPromoteSeverity, TrackerKind } from './inputs.ts';

// The stored form of tracker connections and of findings' tickets (docs/TRACKERS.md).

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

/** The record a sealed value of a tracker connection belongs to (its additional authenticated data). */
export const trackerSealContext = (tracker: Pick<TrackerRecord, 'organizationId' | 'trackerId'>) =>
  `tracker:${tracker.organizationId}:${tracker.trackerId}:token`;

export async function getTracker(orgId: string, trackerId: string): Promise<TrackerRecord | undefined> {
  return fromItem<TrackerRecord>(await getItem(keys.tracker(orgId, trackerId)));
}

export async function trackersOfOrg(orgId: string): Promise<TrackerRecord[]> {
  const { pk, skPrefix } = keys.trackersOfOrg(orgId);
  return (await queryAll({ partition: pk, skPrefix, consistent: true })).map((item) => fromItem<TrackerRecord>(item)!);
}

/** Stores `tracker` (its revision already incremented), provided nobody changed it since revision - 1. */
export const putTracker = (tracker: TrackerRecord): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: { ...keys.tracker(tracker.organizationId, tracker.trackerId), entity: 'tracker', ...tracker },
    ...(tracker.revision > 1
      ? {
          ConditionExpression: 'revision = :previous',
          ExpressionAttributeValues: { ':previous': tracker.revision - 1 },
        }
      : { ConditionExpression: 'attribute_not_exists(pk)' }),
  },
});

export const deleteTrackerItem = (tracker: TrackerRecord): TransactItem => ({
  Delete: {
    TableName: config.tableName,
    Key: keys.tracker(tracker.organizationId, tracker.trackerId),
    ConditionExpression: 'revision = :revision',
    ExpressionAttributeValues: { ':revision': tracker.revision },
  },
});

type FindingRef = { applicationId: string; environmentId: string; findingHash: string };

export const ticketKey = (ref: FindingRef) => keys.ticket(ref.applicationId, ref.environmentId, ref.findingHash);

export async function getTicket(ref: FindingRef): Promise<TicketRecord | undefined> {
  return fromItem<TicketRecord>(await getItem(ticketKey(ref)));
}

export async function ticketsOfEnvironment(env: {
  applicationId: string;
  environmentId: string;
}): Promise<TicketRecord[]> {
  const { pk, skPrefix } = keys.ticketsOfEnvironment(env.applicationId, env.environmentId);
  return (await queryAll({ partition: pk, skPrefix, consistent: true })).map((item) => fromItem<TicketRecord>(item)!);
}

/** The tickets of these findings of one environment (by hash), for a page of findings. */
export async function ticketsOf(
  env: { applicationId: string; environmentId: string },
  hashes: string[],
): Promise<Map<string, TicketRecord>> {
  const unique = [...new Set(hashes)];
  if (unique.length === 0) return new Map();
  const items = await batchGet(unique.map((h) => keys.ticket(env.applicationId, env.environmentId, h)));
  return new Map(items.map((item) => fromItem<TicketRecord>(item)!).map((t) => [t.findingHash, t]));
}

/** Stores `ticket` (its version already incremented), provided nobody changed it since version - 1. */
export const putTicket = (ticket: TicketRecord) => ({
  TableName: config.tableName,
  Item: { ...ticketKey(ticket), entity: 'ticket', ...ticket },
  ...(ticket.version > 1
    ? { ConditionExpression: 'version = :previous', ExpressionAttributeValues: { ':previous': ticket.version - 1 } }
    : { ConditionExpression: 'attribute_not_exists(pk)' }),
});
