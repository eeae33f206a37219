import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { consistentReadsRequested } from '../db/consistent-reads.ts';
import { fromItem, named } from '../db/items.ts';
import {
  batchDelete,
  batchGet,
  batchPut,
  byUtf8,
  deleteFound,
  queryAll,
  queryItems,
  segmentedItems,
  segmentedList,
} from '../db/query.ts';
import type { TransactItem } from '../db/transactions.ts';
import { config } from '../config.ts';
import {
  type ScanRecord,
  type AlertRecord,
  type CountedUri,
  type AlertUriRecord,
  type AlertMessageRecord,
  type ScanLocation,
  isCommitted,
  committedNumbers,
  reportsFull,
} from './model.ts';

// Scans, their alerts, alert URIs and messages, and configuration uses (docs/DATA-MODEL.md, Scans).

const toCountedUri = (alert: AlertRecord, u: Record<string, unknown>): CountedUri => ({
  alert,
  findingHash: u.findingHash as string,
  uri: u.uri as string,
  requestMethod: u.requestMethod as string,
  param: (u.param as string | undefined) ?? '',
});

/**
 * The counted URIs of each of `alerts` (those with any), each alert's in key order: one Query per alert, at most
 * `concurrency` in flight, so that a large scan's pages are read side by side rather than one after another (the scan
 * diff). The URIs of one finding share its alert, so each finding's first URI is the one countedUrisOfScan gives.
 */
export async function countedUrisByAlert(
  scan: ScanRef,
  alerts: AlertRecord[],
  concurrency = 8,
): Promise<CountedUri[][]> {
  const counted = alerts.filter((a) => a.uriCount > 0);
  const out: CountedUri[][] = counted.map(() => []);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < counted.length; i = next++) {
      const alert = counted[i];
      const first = keys.alertUri(scan.applicationId, scan.environmentId, scan.scanId, alert.pluginId, 0);
      for await (const u of queryItems({
        partition: first.pk,
        skPrefix: first.sk.slice(0, first.sk.lastIndexOf('#') + 1),
        attributes: ['n', 'pluginId', 'findingHash', 'uri', 'requestMethod', 'param'],
      })) {
        // A plugin id with a `#` shares this prefix: its URIs are its own alert's.
        if (u.pluginId === alert.pluginId && isCommitted(alert, u.n as number)) out[i].push(toCountedUri(alert, u));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, counted.length) }, worker));
  return out;
}

/** The attributes of a scan's URIs that countedUrisOfScan reads. */
const COUNTED_URI_ATTRIBUTES = ['n', 'pluginId', 'findingHash', 'uri', 'requestMethod', 'param'];

/** The scan's URI range, projected to `attributes`, and where to cut it into segments (uriSplits). */
function uriRangeOf(scan: ScanRef, alerts: AlertRecord[], attributes: string[]) {
  const range = keys.urisOfScan(scan.applicationId, scan.environmentId, scan.scanId);
  const query = { partition: range.pk, skFrom: range.skFrom, skTo: range.skTo, attributes };
  return { query, splits: uriSplits(range.skFrom, alerts) };
}

/**
 * The scan's URIs that `alerts` count, in key order: a URI of another plugin, or written by a request that never
 * counted it, is skipped. One Query of the scan's URI range, projected.
 */
export async function* countedUrisOfScan(scan: ScanRef, alerts: AlertRecord[]): AsyncGenerator<CountedUri> {
  const alertOf = new Map(alerts.map((a) => [a.pluginId, a]));
  const { query, splits } = uriRangeOf(scan, alerts, COUNTED_URI_ATTRIBUTES);
  for await (const u of segmentedItems(query, splits)) {
    const alert = alertOf.get(u.pluginId as string);
    if (!alert || !isCommitted(alert, u.n as number)) continue;
    yield toCountedUri(alert, u);
  }
}

/**
 * countedUrisOfScan's URIs, in its order, all at once (db/query.ts segmentedList: no async step per URI), for a
 * reader of every URI (a diff, the SARIF export). `hashesOnly`: of each URI only its finding hash and alert are read
 * (`uri`, `requestMethod` and `param` left ''), for a reader of which findings a scan has, not of their URIs.
 */
export async function countedUriList(
  scan: ScanRef,
  alerts: AlertRecord[],
  { hashesOnly = false } = {},
): Promise<CountedUri[]> {
  const alertOf = new Map(alerts.map((a) => [a.pluginId, a]));
  const attributes = hashesOnly ? ['n', 'pluginId', 'findingHash'] : COUNTED_URI_ATTRIBUTES;
  const { query, splits } = uriRangeOf(scan, alerts, attributes);
  const counted: CountedUri[] = [];
  for (const u of await segmentedList(query, splits)) {
    const alert = alertOf.get(u.pluginId as string);
    if (!alert || !isCommitted(alert, u.n as number)) continue;
    counted.push(
      hashesOnly
        ? { alert, findingHash: u.findingHash as string, uri: '', requestMethod: '', param: '' }
        : toCountedUri(alert, u),
    );
  }
  return counted;
}

/** URIs of a segment of a scan's URI range read side by side (db/query.ts segmentedItems): under a 1 MB page. */
const URIS_PER_SEGMENT = 2_000;

/**
 * Where to cut a scan's URI range (`from`: its start) into segments of about URIS_PER_SEGMENT URIs: before an
 * alert's first URI, by the alerts' counts in key order (an alert's URIs stay in one segment).
 */
function uriSplits(from: string, alerts: AlertRecord[]): string[] {
  const starts = alerts
    .map((a) => ({ key: `${from}${a.pluginId}#`, uris: a.uriCount }))
    .sort((a, b) => byUtf8(a.key, b.key));
  const splits: string[] = [];
  let inSegment = 0;
  for (const { key, uris } of starts) {
    if (inSegment > 0 && inSegment + uris > URIS_PER_SEGMENT) {
      splits.push(key);
      inSegment = 0;
    }
    inSegment += uris;
  }
  return splits;
}

type ScanRef = Pick<ScanRecord, 'applicationId' | 'environmentId' | 'scanId'>;

const getItem = async (Key: Record<string, unknown>) =>
  (await db.send(new GetCommand({ TableName: config.tableName, Key, ConsistentRead: true }))).Item;

export async function getScanLocation(scanId: string): Promise<ScanLocation | undefined> {
  return fromItem<ScanLocation>(await getItem(keys.scanLocation(scanId)));
}

/** The scan record (strongly consistent: the scanner's requests follow each other closely). */
export async function getScan(location: ScanLocation): Promise<ScanRecord | undefined> {
  return fromItem<ScanRecord>(
    await getItem(keys.scanRecord(location.applicationId, location.environmentId, location.scanId)),
  );
}

/**
 * The scan `scanId` if it is one of `owner`'s application (and organization), else undefined: a scan id a caller sent
 * is never followed into another application's scans (updateScanRun, reportScanRunStarted).
 */
export async function scanOfApplication(
  scanId: string,
  owner: Pick<ScanRecord, 'applicationId' | 'organizationId'>,
): Promise<ScanRecord | undefined> {
  const location = await getScanLocation(scanId);
  if (location?.applicationId !== owner.applicationId) return undefined;
  const scan = await getScan(location);
  return scan?.organizationId === owner.organizationId ? scan : undefined;
}

/** The scan's status as stored now (a strongly consistent read, never a prefetched one); undefined once deleted. */
export async function scanStatusNow(location: ScanLocation): Promise<ScanRecord['status'] | undefined> {
  const key = keys.scanRecord(location.applicationId, location.environmentId, location.scanId);
  return (await db.send(new GetCommand({ TableName: config.tableName, Key: key, ConsistentRead: true }))).Item
    ?.status as ScanRecord['status'] | undefined;
}

/** Scan records by location (BatchGetItem; unknown ones are left out, order is not kept). */
export async function getScans(locations: ScanLocation[]): Promise<ScanRecord[]> {
  const items = await batchGet(locations.map((l) => keys.scanRecord(l.applicationId, l.environmentId, l.scanId)));
  return items.map((item) => fromItem<ScanRecord>(item)!).filter((scan) => !scan.deleting);
}

export async function getAlert(scan: ScanRef, pluginId: string): Promise<AlertRecord | undefined> {
  return fromItem<AlertRecord>(
    await getItem(keys.scanAlert(scan.applicationId, scan.environmentId, scan.scanId, pluginId)),
  );
}

export async function alertsOfScan(scan: ScanRef): Promise<AlertRecord[]> {
  const { pk, skFrom, skTo } = keys.alertsOfScan(scan.applicationId, scan.environmentId, scan.scanId);
  return (await queryAll({ partition: pk, skFrom, skTo })).map((item) => fromItem<AlertRecord>(item)!);
}

/** The alert's URIs numbered from..to (inclusive), in order: a page is one sort-key range. */
export async function alertUris(scan: ScanRef, pluginId: string, from: number, to: number): Promise<AlertUriRecord[]> {
  const at = (n: number) => keys.alertUri(scan.applicationId, scan.environmentId, scan.scanId, pluginId, n);
  const items = await queryAll({ partition: at(from).pk, skFrom: at(from).sk, skTo: at(to).sk });
  return items.map((item) => fromItem<AlertUriRecord>(item)!);
}

/** Every URI item of the scan, each alert's in order (one sort-key range; counted or not: callers filter). */
export async function urisOfScan(scan: ScanRef): Promise<AlertUriRecord[]> {
  const range = keys.urisOfScan(scan.applicationId, scan.environmentId, scan.scanId);
  const items = await queryAll({ partition: range.pk, skFrom: range.skFrom, skTo: range.skTo });
  return items.map((item) => fromItem<AlertUriRecord>(item)!);
}

/**
 * The alert's counted URIs at positions [from, from + size) among them, in order: their numbers from the committed
 * ranges, one sort-key range read, uncounted ones dropped.
 */
export async function countedAlertUris(
  scan: ScanRef,
  alert: AlertRecord,
  from: number,
  size: number,
): Promise<AlertUriRecord[]> {
  const numbers = committedNumbers(alert, from, size);
  if (numbers.length === 0) return [];
  const wanted = new Set(numbers);
  return (await alertUris(scan, alert.pluginId, numbers[0], numbers[numbers.length - 1])).filter((u) =>
    wanted.has(u.n),
  );
}

/** Every attribute of a URI item (a read projecting them reads each URI whole). */
const URI_ATTRIBUTES = Object.keys({
  n: true,
  alertUriId: true,
  msgId: true,
  pluginId: true,
  uri: true,
  requestMethod: true,
  param: true,
  findingHash: true,
} satisfies Record<keyof AlertUriRecord, true>);

/** Every attribute of an alert item (a read projecting them reads each alert whole). */
const ALERT_ATTRIBUTES = Object.keys({
  pluginId: true,
  name: true,
  severity: true,
  description: true,
  cweId: true,
  references: true,
  uriCount: true,
  nextUri: true,
  committed: true,
} satisfies Record<keyof AlertRecord, true>);

/**
 * The scan's alerts (as alertsOfScan reads them), every URI item (as urisOfScan) and its messages (only
 * `messageAttributes`), in one Query: its alerts' range, then its messages' and its URIs' (`#ALERT#`, `#MSG#`,
 * `#URI#`; between them only its coverage and digest items, which are read too and left out). For a reader of all
 * its URIs that needs their alerts and messages too: one call, and the messages cost their size, not half a read
 * unit each.
 */
export async function alertsUrisAndMessagesOfScan<A extends keyof AlertMessageRecord>(
  scan: ScanRef,
  messageAttributes: A[],
): Promise<{ alerts: AlertRecord[]; uris: AlertUriRecord[]; messages: Pick<AlertMessageRecord, A>[] }> {
  const alerts = keys.alertsOfScan(scan.applicationId, scan.environmentId, scan.scanId);
  const messages = keys.messagesOfScan(scan.applicationId, scan.environmentId, scan.scanId);
  const uris = keys.urisOfScan(scan.applicationId, scan.environmentId, scan.scanId);
  const items = await queryAll({
    partition: uris.pk,
    skFrom: alerts.skFrom,
    skTo: uris.skTo,
    attributes: [...new Set(['sk', ...ALERT_ATTRIBUTES, ...URI_ATTRIBUTES, ...messageAttributes])],
  });
  const within = (from: string, to: string) =>
    items.filter((item) => byUtf8(item.sk as string, from) >= 0 && byUtf8(item.sk as string, to) <= 0);
  return {
    alerts: within(alerts.skFrom, alerts.skTo).map((item) => fromItem<AlertRecord>(item)!),
    uris: within(uris.skFrom, uris.skTo).map((item) => fromItem<AlertUriRecord>(item)!),
    messages: within(messages.skPrefix, `${messages.skPrefix}\u{10FFFF}`).map(
      (item) => Object.fromEntries(messageAttributes.map((a) => [a, item[a]])) as Pick<AlertMessageRecord, A>,
    ),
  };
}

export async function getAlertMessage(scan: ScanRef, msgId: string): Promise<AlertMessageRecord | undefined> {
  return fromItem<AlertMessageRecord>(
    await getItem(keys.alertMessage(scan.applicationId, scan.environmentId, scan.scanId, msgId)),
  );
}

/** The organization's scans started within [from, to] (ms), newest first, read lazily. */
export async function* scansOfOrg(orgId: string, from: number, to: number): AsyncGenerator<ScanRecord> {
  const { gsi3pk, gsi3skFrom, gsi3skTo } = keys.scansOfOrgBetween(orgId, from, to);
  const items = queryItems({ index: 'gsi3', partition: gsi3pk, skFrom: gsi3skFrom, skTo: gsi3skTo, forward: false });
  for await (const item of items) yield fromItem<ScanRecord>(item)!;
}

/** The environment's scans started at or before `startedBy` (ms; default: all), newest first, read lazily. */
export async function* scansOfEnvironmentNewestFirst(
  envId: string,
  startedBy = Number.MAX_SAFE_INTEGER,
): AsyncGenerator<ScanRecord> {
  // Among consistent reads (db/consistent-reads.ts) the index only names the scans: each is read again by key.
  const verify = consistentReadsRequested();
  const items = queryItems({
    index: 'gsi1',
    partition: keys.scansOfEnvironment(envId).gsi1pk,
    skTo: keys.scansStartedBy(startedBy),
    forward: false,
    pageLimit: 10,
    verifiedByKey: verify,
  });
  for await (const item of items) {
    const scan = fromItem<ScanRecord>(item)!;
    const fresh = verify
      ? fromItem<ScanRecord>(await getItem(keys.scanRecord(scan.applicationId, envId, scan.scanId)))
      : scan;
    if (fresh) yield fresh;
  }
}

/** Whether a scan of the environment reported this configuration (and is not deleted). */
export async function configUsedByEnvironments(appId: string, envIds: string[], configHash: string): Promise<boolean> {
  const uses = await Promise.all(envIds.map((envId) => getItem(keys.scanConfigUse(appId, envId, configHash))));
  return uses.some((use) => Number(use?.scans ?? 0) > 0);
}

// ---- Writes

/**
 * Hands out `count` URI numbers of the alert, creating it on its first report (its first report sets name,
 * severity and the rest). Returns the stored alert and the first number.
 */
export async function reserveAlertUris(
  scan: ScanRef,
  alert: Omit<AlertRecord, 'uriCount' | 'nextUri' | 'committed'>,
  count: number,
): Promise<{ alert: AlertRecord; first: number }> {
  const out = await db.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.scanAlert(scan.applicationId, scan.environmentId, scan.scanId, alert.pluginId),
      UpdateExpression:
        'SET entity = :entity, pluginId = :pluginId, #name = if_not_exists(#name, :name), severity = if_not_exists(severity, :severity), ' +
        'description = if_not_exists(description, :description), cweId = if_not_exists(cweId, :cweId), ' +
        '#references = if_not_exists(#references, :references), uriCount = if_not_exists(uriCount, :zero) ADD nextUri :count',
      ExpressionAttributeNames: { '#name': 'name', '#references': 'references' },
      ExpressionAttributeValues: {
        ':entity': 'scanAlert',
        ':pluginId': alert.pluginId,
        ':name': alert.name,
        ':severity': alert.severity,
        ':description': alert.description,
        ':cweId': alert.cweId,
        ':references': alert.references,
        ':zero': 0,
        ':count': count,
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const stored = fromItem<AlertRecord>(out.Attributes)!;
  return { alert: stored, first: stored.nextUri - count };
}

/** Stores findings (URI and message items); they count only once findingsCount commits. */
/** The items of a scan's findings: each one's URI and message. */
export function findingDataItems(scan: ScanRef, findings: { uri: AlertUriRecord; message: AlertMessageRecord }[]) {
  const { applicationId: appId, environmentId: envId, scanId } = scan;
  return findings.flatMap(({ uri, message }) => [
    { ...keys.alertUri(appId, envId, scanId, uri.pluginId, uri.n), entity: 'alertUri', ...uri },
    { ...keys.alertMessage(appId, envId, scanId, message.msgId), entity: 'alertMessage', ...message },
  ]);
}

export async function putFindings(
  scan: ScanRef,
  findings: { uri: AlertUriRecord; message: AlertMessageRecord }[],
  signal?: AbortSignal,
): Promise<void> {
  await batchPut(findingDataItems(scan, findings), 8, signal);
}

export async function removeFindings(scan: ScanRef, uris: AlertUriRecord[]): Promise<void> {
  const { applicationId: appId, environmentId: envId, scanId } = scan;
  await batchDelete(
    uris.flatMap((u) => [
      keys.alertUri(appId, envId, scanId, u.pluginId, u.n),
      keys.alertMessage(appId, envId, scanId, u.msgId),
    ]),
  );
}

/**
 * Counts a request's stored findings, all of them or none: one transaction adds them to the scan's total (while
 * it is STARTED: index 0) and to each alert's count, appending each alert's range of numbers to its committed
 * ranges (while it has fewer than `maxReports`: index i + 1 for the i-th alert).
 */
export function findingsCount(
  scan: ScanRef,
  counts: { pluginId: string; first: number; count: number }[],
  maxReports: number,
  reportId?: string,
): TransactItem[] {
  const { applicationId: appId, environmentId: envId, scanId } = scan;
  const count = counts.reduce((n, c) => n + c.count, 0);
  // A report with an id is counted once: its id joins the scan's reportIds in the same write.
  const once = reportId
    ? {
        update: ', reportIds :ids',
        condition: ' AND NOT contains(reportIds, :id)',
        values: { ':ids': new Set([reportId]), ':id': reportId },
      }
    : { update: '', condition: '', values: {} };
  return [
    named('scanEnded', {
      Update: {
        TableName: config.tableName,
        Key: keys.scanRecord(appId, envId, scanId),
        UpdateExpression: `ADD reportedUris :count${once.update}`,
        ConditionExpression: `#status = :started AND attribute_not_exists(deleting)${once.condition}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':count': count, ':started': 'STARTED', ...once.values },
      },
    }),
    ...counts.map(({ pluginId, first, count }): TransactItem =>
      named(reportsFull(pluginId), {
        Update: {
          TableName: config.tableName,
          Key: keys.scanAlert(appId, envId, scanId, pluginId),
          UpdateExpression: 'ADD uriCount :count SET committed = list_append(if_not_exists(committed, :none), :range)',
          ConditionExpression: 'attribute_not_exists(committed) OR size(committed) < :max',
          ExpressionAttributeValues: { ':count': count, ':none': [], ':range': [[first, count]], ':max': maxReports },
        },
      }),
    ),
  ];
}

/**
 * A failed completion's step before it puts the environment's finding records back (restoreFindings): true when the
 * scan is still STARTED, and then no completion that read the scan before this step can commit (scan-write.ts
 * scanEnd checks findingsRestores): its records may be among those put back, so it reads the scan and records them
 * again. False when the scan completed (or was deleted) meanwhile: the records are then the winning completion's.
 */
export async function scanFindingsRestoreStart(scan: ScanLocation): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.scanRecord(scan.applicationId, scan.environmentId, scan.scanId),
        UpdateExpression: 'ADD findingsRestores :one',
        ConditionExpression: '#status = :started',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':one': 1, ':started': 'STARTED' },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Removes a deleting scan's alerts, URIs and messages, then its record and lookup (a retry resumes). */
export async function deleteScanData(scan: ScanRef): Promise<void> {
  const { applicationId: appId, environmentId: envId, scanId } = scan;
  const data = keys.dataOfScan(appId, envId, scanId);
  await deleteFound({ partition: data.pk, skPrefix: data.skPrefix });
  const record = keys.scanRecord(appId, envId, scanId);
  await deleteFound({ partition: record.pk, skPrefix: record.sk });
}
