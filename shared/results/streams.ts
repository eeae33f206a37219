import { batchGet } from '../db/query.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import type { EnvironmentRecord, EnvironmentStreams } from '../applications/model.ts';
import type { FindingRecord, ScanRecord } from './model.ts';
import { getScan } from './scan-repository.ts';

// Tool streams (docs/DATA-MODEL.md, Tool streams): each scan belongs to the stream of the scanner that produced it,
// in its environment. A finding is fixed only by a later scan of its own stream; the environment's current findings
// are the union of its streams' latest scans.

/** The stream of scans reported by HawkScan (or any scanner that names no other tool). */
export const HAWKSCAN_STREAM = 'hawkscan';

/** A stream's name for an imported report's tool: its tool id, and a SARIF log's driver name after `sarif:`. */
export function streamOfTool(tool: string, toolName: string): string {
  if (tool !== 'sarif') return tool;
  return `sarif:${toolName.trim().toLowerCase().slice(0, 64)}`;
}

const AGENT = /^hawk-scanner agent \((.+)\)$/;

/**
 * The stream of a scan from what it reports: an imported report's `importedFrom` tag (`zap-xml`, `nuclei-jsonl`,
 * `sarif`: then the driver named in its version field), a hosted run's engine (its version field), else HawkScan.
 * The same for the import operation, the CLI's import and the upgrade of scans stored before streams.
 */
export function streamOfLabels(scan: Pick<ScanRecord, 'hawkscanVersion' | 'tags'>): string {
  const imported = scan.tags.find((tag) => tag.name === 'importedFrom')?.value;
  if (imported) {
    const tool = imported.split('-')[0];
    if (tool !== 'sarif') return tool;
    const version = scan.tags.find((tag) => tag.name === 'toolVersion')?.value;
    const name =
      version && scan.hawkscanVersion.endsWith(` ${version}`)
        ? scan.hawkscanVersion.slice(0, -version.length - 1)
        : scan.hawkscanVersion;
    return streamOfTool('sarif', name);
  }
  const engine = AGENT.exec(scan.hawkscanVersion)?.[1];
  return engine && engine !== 'no engine' ? engine.toLowerCase() : HAWKSCAN_STREAM;
}

/** The scan's stream: as recorded, or (a scan stored before streams) from its labels. */
export const streamOf = (scan: Pick<ScanRecord, 'stream' | 'hawkscanVersion' | 'tags'>) =>
  scan.stream ?? streamOfLabels(scan);

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

/** The stream whose latest scan is `scanId`, if any. */
export const streamHeadedBy = (streams: EnvironmentStreams, scanId: string) =>
  Object.entries(streams).find(([, head]) => head.scanId === scanId)?.[0];

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
