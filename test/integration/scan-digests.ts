import { batchDelete, queryAll } from '../../shared/db/query.ts';
import { keys } from '../../shared/db/keys.ts';
import { getScan, getScanLocation } from '../../shared/results/scan-repository.ts';

// A scan's digest as the export and the diff tests see it (shared/scans/scan-digest.ts): read, and removed so that
// the scan reads as one written before digests.

/** A scan's record, by its id. */
export const recordOf = async (scanId: string) => (await getScan((await getScanLocation(scanId))!))!;

/** The items of a scan's digest: its head, then its chunks. */
export async function digestItems(scanId: string) {
  const scan = await recordOf(scanId);
  const head = keys.scanDigest(scan.applicationId, scan.environmentId, scan.scanId);
  return queryAll({ partition: head.pk, skPrefix: head.sk });
}

/** Deletes a scan's digest, head and chunks. */
export const dropDigest = async (scanId: string) =>
  batchDelete((await digestItems(scanId)).map((item) => ({ pk: item.pk, sk: item.sk })));
