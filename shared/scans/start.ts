import { randomUUID } from 'node:crypto';
import { accessibleApplication } from '../applications/access.ts';
import { auditEntry } from '../audit/entries.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { failedCondition, retryOnConflict } from '../db/retry.ts';
import { findOrCreateEnvironmentByName } from '../applications/environments.ts';
import { environmentScanWrites } from '../applications/environment-repository.ts';
import { scanFieldsOf, ApplicationRecord } from '../applications/model.ts';
import { currentStreams } from '../results/streams.ts';
import { streamOfLabels, type ScanRecord } from '../results/model.ts';
import { scanStart } from './scan-write.ts';
import { configHashOf, parseScanConfig, scanTypeOf, storeScanConfig } from './configs.ts';
import { headOf, lastScanOf } from './scans.ts';
import type { ScanStartedBody } from './model.ts';
import type { Caller } from '../context/caller.ts';

// POST /api/v1/app/{appId}/scan: the scanner announces a scan (docs/DATA-MODEL.md, Scans).

/** reportScanStarted: the scanner announces a scan of the application. */
export async function reportScanStarted(caller: Caller, appId: string, readBody: () => Promise<ScanStartedBody>) {
  // Authorized (permission, the application's existence and team) before the body and its configuration are parsed.
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  return recordScanStart(caller, app, await readBody());
}

/**
 * Writes of another record that a scan's start makes in its own transaction (a hosted run recording its scan:
 * reportScanRunStarted), built afresh for each attempt from what they read.
 */
export type ScanStartWrites = (scan: ScanRecord, attempt: number) => Promise<TransactItem[]>;

/**
 * Records a STARTED scan as its environment's last scan, creating the environment when the name is new, in one
 * transaction with SCAN_STARTED (and ENVIRONMENT_ADDED) and `alongside`'s writes. The configuration is stored first:
 * it is addressed by its hash, so a failed start leaves at most an object a later scan may reuse (removed with the
 * application).
 */
export async function recordScanStart(
  caller: Caller,
  accessed: ApplicationRecord,
  body: ScanStartedBody,
  alongside?: ScanStartWrites,
) {
  const appId = accessed.applicationId;
  let app = accessed;
  const parsedConfig = parseScanConfig(body.config);
  const configHash = configHashOf(body.config);
  await storeScanConfig(appId, configHash, body.config, parsedConfig);
  return retryOnConflict({ conflict: failedCondition() }, async (attempt) => {
    // Another request created the environment, changed the application's environment count or started a scan of
    // the environment meanwhile: read again and rebuild.
    if (attempt > 1) ({ app } = await accessibleApplication(caller, appId, { teamRestricted: true }));
    const scan: ScanRecord = {
      scanId: randomUUID(),
      organizationId: app.organizationId,
      applicationId: appId,
      environmentId: '',
      envName: body.env,
      status: 'STARTED',
      userId: caller.userId,
      startedAt: Date.now(),
      urlCount: 0,
      hawkscanVersion: body.hawkscanVersion,
      host: body.host,
      tags: body.tags,
      configHash,
      scanType: scanTypeOf(parsedConfig),
      reportedUris: 0,
    };
    scan.stream = streamOfLabels(scan);
    // A new environment is created with this scan as its last scan and its stream's latest; an existing one is
    // updated, provided its last scan and streams are still the ones read (so a scan started meanwhile is not
    // overwritten by an older one).
    const head = { [scan.stream]: headOf(scan) };
    const found = await findOrCreateEnvironmentByName(caller, app, body.env, scanFieldsOf(lastScanOf(scan), head));
    const env = found.env;
    Object.assign(scan, { environmentId: env.environmentId, envName: env.name });
    const payload = {
      scanId: scan.scanId,
      applicationId: appId,
      appName: app.name,
      envId: env.environmentId,
      envName: env.name,
    };
    const items = [
      ...found.items,
      ...scanStart(scan, app),
      ...(found.created
        ? []
        : await environmentScanWrites(env, {
            lastScan: lastScanOf(scan),
            streams: { ...(await currentStreams(env)), ...head },
          })),
      auditEntry(caller, app.organizationId, 'SCAN_STARTED', payload),
      ...(alongside ? await alongside(scan, attempt) : []),
    ];
    await transactWrite(items);
    return { scanId: scan.scanId, configHash, envId: env.environmentId };
  });
}
