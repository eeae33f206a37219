import { batchGet } from '../db/query.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import type { EnvironmentRecord, EnvironmentStreams } from '../applications/model.ts';
import { type FindingRecord, type ScanRecord, HAWKSCAN_STREAM, streamOf } from './model.ts';
import { getScan } from './scan-repository.ts';

// Tool streams (docs/DATA-MODEL.md, Tool streams): each scan belongs to the stream of the scanner that produced it,
// in its environment. A finding is fixed only by a later scan of its own stream; the environment's current findings
// are the union of its streams' latest scans.

/**
 * The environment's streams: as recorded, or, for an environment written before streams, its last scan as its one
 * stream (its figures are that scan's).
 */
export async function currentStreams(env: EnvironmentRecord): Promise<EnvironmentStreams> {
  if (env.streams) return env.streams;
  if (!env.lastScanId) return {};
  const scan = await getScan({ ...env, scanId: env.lastScanId });
  return {
    [scan ? streamOf(scan) : HAWKSCAN_STREAM]: {
      scanId: env.lastScanId,
      status: env.lastScanStatus ?? 'COMPLETED',
      startedAt: env.lastScanTimestamp ?? 0,
      High: env.lastScanHighUntriaged ?? 0,
      Medium: env.lastScanMediumUntriaged ?? 0,
      Low: env.lastScanLowUntriaged ?? 0,
    },
  };
}

/**
 * The stream of each of these findings: as recorded, or (records written before streams) their last scan's, read
 * once per scan (a deleted scan's: HawkScan's).
 */
export async function findingStreams(
  env: Pick<EnvironmentRecord, 'applicationId' | 'environmentId'>,
  findings: Iterable<Pick<FindingRecord, 'stream' | 'lastScanId'>>,
): Promise<(finding: Pick<FindingRecord, 'stream' | 'lastScanId'>) => string> {
  const unknown = new Set<string>();
  for (const f of findings) if (f.stream === undefined) unknown.add(f.lastScanId);
  const items = await batchGet(
    [...unknown].map((scanId) => keys.scanRecord(env.applicationId, env.environmentId, scanId)),
    ['scanId', 'stream', 'hawkscanVersion', 'tags'],
  );
  const byScan = new Map(
    items.map((item) => fromItem<ScanRecord>(item)!).map((scan) => [scan.scanId, streamOf(scan)] as const),
  );
  return (f) => f.stream ?? byScan.get(f.lastScanId) ?? HAWKSCAN_STREAM;
}

/**
 * Of these current findings that a scan of `stream` no longer reports (or that a verified retest found gone), those
 * of that stream, fixed at `now`: a finding is fixed only within its own stream.
 */
export async function fixedInStream(
  env: Pick<EnvironmentRecord, 'applicationId' | 'environmentId'>,
  stream: string,
  missing: FindingRecord[],
  now: number,
): Promise<FindingRecord[]> {
  const streamOfFinding = await findingStreams(env, missing);
  return missing.filter((f) => streamOfFinding(f) === stream).map((f) => ({ ...f, stream, fixedAt: now }));
}
