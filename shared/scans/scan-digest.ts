import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { batchPut, prefixRange, queryItems } from '../db/query.ts';
import type { AlertRecord, FindingRecord, ScanRecord } from '../results/model.ts';

// A scan's digest (docs/DATA-MODEL.md, Scan diffs): its findings, one row each, gzipped into one item (or a few),
// written when the scan is published, so that a diff reads a few items rather than every URI of both scans. It is
// derived from data that never changes once counted (a scan's counted URIs only grow, and only while it is STARTED),
// so it is checked when read rather than written in the publishing transaction (which it would not fit): a digest
// counts only for a scan with as many URIs as it was computed from.

/** One finding of the digest: its first URI's method, URI and parameter, and its issue as computed at publication. */
export interface DigestRow {
  findingHash: string;
  pluginId: string;
  requestMethod: string;
  uri: string;
  param: string;
  issueId: string;
}

export interface ScanDigest {
  rows: DigestRow[];
  /** Each plugin's alert name, severity and CWE. */
  plugins: Map<string, Pick<AlertRecord, 'name' | 'severity' | 'cweId'>>;
  /** The issue path templates' key the rows' issues were computed with ('' for none: results/model.ts, PathTemplates). */
  templates: string;
}

type ScanRef = Pick<ScanRecord, 'applicationId' | 'environmentId' | 'scanId' | 'reportedUris'>;
type Row = [string, string, string, string, string, string];

/** A gzipped digest larger than this is split into chunks beside its head (DynamoDB's item limit is 400 KB). */
const CHUNK_BYTES = 350 * 1024;
/** Past this many chunks (5.6 MB gzipped) no digest is written: the diff reads the scan's URIs. */
const MAX_CHUNKS = 16;

/**
 * Writes the digest of a scan about to be published: `findings` as findingsOfScan computed them (first URI of each, in
 * the scan's URI order), `alerts` its alerts, `templates` the key of the issue templates they were computed with.
 * A large digest's chunks go first, its head last: a head is only ever read with its chunks in place.
 */
export async function putScanDigest(
  scan: ScanRef,
  findings: Pick<FindingRecord, 'findingHash' | 'pluginId' | 'requestMethod' | 'uri' | 'param' | 'issueId'>[],
  alerts: Pick<AlertRecord, 'pluginId' | 'name' | 'severity' | 'cweId'>[],
  templates: string,
  signal?: AbortSignal,
): Promise<void> {
  const plugins = Object.fromEntries(alerts.map((a) => [a.pluginId, [a.name, a.severity, a.cweId]]));
  const rows: Row[] = findings.map((f) => [
    f.findingHash,
    f.pluginId,
    f.requestMethod,
    f.uri,
    f.param,
    f.issueId ?? '',
  ]);
  const data = await promisify(gzip)(JSON.stringify({ plugins, rows }));
  const { applicationId: appId, environmentId: envId, scanId } = scan;
  const head = {
    ...keys.scanDigest(appId, envId, scanId),
    entity: 'scanDigest',
    reportedUris: scan.reportedUris,
    templates,
  };
  if (data.length <= CHUNK_BYTES) {
    await db.send(new PutCommand({ TableName: config.tableName, Item: { ...head, data } }), { abortSignal: signal });
    return;
  }
  const chunks = Math.ceil(data.length / CHUNK_BYTES);
  if (chunks > MAX_CHUNKS) return;
  const digestId = randomUUID();
  await batchPut(
    Array.from({ length: chunks }, (_, i) => ({
      ...keys.scanDigestChunk(appId, envId, scanId, digestId, i),
      entity: 'scanDigestChunk',
      data: data.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES),
    })),
    4,
    signal,
  );
  await db.send(new PutCommand({ TableName: config.tableName, Item: { ...head, digestId, chunks } }), {
    abortSignal: signal,
  });
}

/**
 * The scan's digest: one Query of its digest items (strongly consistent). Undefined when it has none (published
 * before digests, or too large) or one computed from another count of URIs than the scan's (a completion that failed
 * before more reports came): the diff then reads the scan's URIs.
 */
export async function scanDigestOf(scan: ScanRef): Promise<ScanDigest | undefined> {
  const { applicationId: appId, environmentId: envId, scanId } = scan;
  const headKey = keys.scanDigest(appId, envId, scanId);
  let head: Record<string, unknown> | undefined;
  const parts: Uint8Array[] = [];
  for await (const item of queryItems({ partition: headKey.pk, ...prefixRange(headKey.sk), consistent: true })) {
    if (item.sk === headKey.sk) head = item;
    else if (head?.digestId && (item.sk as string).startsWith(`${headKey.sk}#${head.digestId as string}#`))
      parts.push(item.data as Uint8Array);
  }
  if (!head || head.reportedUris !== scan.reportedUris) return undefined;
  if (head.digestId && parts.length !== head.chunks) return undefined;
  const data = head.digestId ? Buffer.concat(parts) : (head.data as Uint8Array);
  const parsed = JSON.parse((await promisify(gunzip)(data)).toString('utf8')) as {
    plugins: Record<string, [string, AlertRecord['severity'], string]>;
    rows: Row[];
  };
  return {
    templates: head.templates as string,
    plugins: new Map(
      Object.entries(parsed.plugins).map(([pluginId, [name, severity, cweId]]) => [
        pluginId,
        { name, severity, cweId },
      ]),
    ),
    rows: parsed.rows.map(([findingHash, pluginId, requestMethod, uri, param, issueId]) => ({
      findingHash,
      pluginId,
      requestMethod,
      uri,
      param,
      issueId,
    })),
  };
}
