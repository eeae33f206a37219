import { gzipSync } from 'node:zlib';
import {
  describedOperations,
  SARIF_LIMITS,
  sarifLogs,
  serializedLog,
  type ExportFinding,
  type OperationIndex,
} from '@hawk-api/scanner/sarif-export';
import { notFound } from '../errors.ts';
import { RawResponse } from '../context/responses.ts';
import { rulesOfEnvironment } from '../results/finding-repository.ts';
import { getHostedDescription } from '../hosted-assets/repository.ts';
import { objectKeys } from '../storage/objects.ts';
import { readObjectText } from '../storage/objects-io.ts';
import { alertsOfScan, countedUriList } from '../results/scan-repository.ts';
import { absoluteUrl } from '../results/model.ts';
import { accessibleScan } from './scans.ts';
import { previousInStream } from './diff.ts';
import { scanDigestOf, type DigestRow } from './scan-digest.ts';
import { coverageOfScan } from './coverage.ts';
import type { ScanSarifQuery } from './inputs.ts';
import type { Caller } from '../context/caller.ts';

// GET /api/v1/scan/{scanId}/sarif (docs/SARIF-EXPORT.md): the scan's findings, each with the triage in force now, as
// a SARIF 2.1.0 log for GitHub code scanning. The log is built by the scanner package's exporter, which the CLI uses
// too; this reads what it needs: the scan's alerts and findings (its digest, or its URIs), the environment's triage
// rules and the application's hosted OpenAPI description.

/** The description's operations, or none when the application has no readable description. */
async function descriptionOf(applicationId: string, oasPath: string | undefined) {
  const record = await getHostedDescription(applicationId);
  // The key is rebuilt (it equals record.objectKey) so that the function's IAM grant covers only descriptions
  // (infra/code-access.ts derives an object grant from the key builders a read goes through).
  const text = record && (await readObjectText(objectKeys.hostedDescription(record.applicationId, record.version)));
  if (!record || text === undefined) return undefined;
  const operations: OperationIndex = describedOperations(text);
  const uri = oasPath ?? (record.contentType.includes('json') ? 'openapi.json' : 'openapi.yaml');
  return { uri, operations };
}

/**
 * One finding per hash among the scan's counted URIs (the first URI reported for it stands for it): from the scan's
 * digest when it has a usable one (scan-digest.ts: a few items, its rows those first URIs; the diff's rule), else
 * from its URIs. Either way the same findings, and the log's order is theirs sorted (sarifLogs), not the read's.
 * `hashesOnly`: a baseline's findings, of which only the hash and plugin are used (countedUriList reads no more of
 * its URIs).
 */
async function findingsOfScan(
  scan: Awaited<ReturnType<typeof accessibleScan>>['scan'],
  pluginIds: Set<string>,
  hashesOnly = false,
) {
  const [alerts, digested] = await Promise.all([alertsOfScan(scan), scanDigestOf(scan)]);
  const counted = new Map(alerts.filter((a) => a.uriCount > 0).map((a) => [a.pluginId, a]));
  const uris: Pick<DigestRow, 'findingHash' | 'pluginId' | 'requestMethod' | 'uri' | 'param'>[] =
    digested?.rows ??
    (await countedUriList(scan, [...counted.values()], { hashesOnly })).map((u) => ({
      ...u,
      pluginId: u.alert.pluginId,
    }));
  const found = new Map<string, Omit<ExportFinding, 'status' | 'note' | 'triagedBy' | 'triagedAt'>>();
  for (const u of uris) {
    if (found.has(u.findingHash) || !counted.has(u.pluginId)) continue;
    pluginIds.add(u.pluginId);
    found.set(u.findingHash, {
      findingHash: u.findingHash,
      pluginId: u.pluginId,
      requestMethod: hashesOnly ? '' : u.requestMethod,
      url: hashesOnly ? '' : absoluteUrl(u.uri, scan.host),
      param: hashesOnly ? '' : u.param,
    });
  }
  return { alerts: [...counted.values()], findings: [...found.values()] };
}

type Found = Awaited<ReturnType<typeof findingsOfScan>>;

/**
 * The findings with their `baselineState` against the previous completed scan of the scan's stream (the diff's
 * baseline; docs/SARIF-EXPORT.md, Baseline): new, unchanged and updated (the alert's severity changed), and how many
 * of the previous scan's findings are absent now. Those are counted, not listed as results: code scanning keeps an
 * alert open while an upload carries its result, whatever its baselineState. No baseline: no baselineState. Of the
 * previous scan's findings only their hashes are used.
 */
function againstBaseline(current: Found, previous: Found | undefined): Found & { absent?: number } {
  if (!previous) return current;
  const severity = (found: Found) => new Map(found.alerts.map((a) => [a.pluginId, a.severity]));
  const [now, before] = [severity(current), severity(previous)];
  const seen = new Set(previous.findings.map((f) => f.findingHash));
  const kept = new Set(current.findings.map((f) => f.findingHash));
  const stateOf = (f: Found['findings'][number]) =>
    !seen.has(f.findingHash) ? 'new' : now.get(f.pluginId) === before.get(f.pluginId) ? 'unchanged' : 'updated';
  return {
    alerts: current.alerts,
    findings: current.findings.map((f) => ({ ...f, baselineState: stateOf(f) }) as const),
    absent: previous.findings.filter((f) => !kept.has(f.findingHash)).length,
  };
}

/**
 * A part's bounds in this operation: GitHub's, and within a Lambda response (6 MB): gzipped to 4 MiB (base64 then
 * stays under 6 MB) for a client that accepts gzip, else 5 MiB of JSON.
 */
const MiB = 1024 * 1024;
const apiLimits = (gzip: boolean) =>
  gzip ? { ...SARIF_LIMITS, maxGzipBytes: 4 * MiB } : { ...SARIF_LIMITS, maxJsonBytes: 5 * MiB };

const acceptsGzip = (header: string | undefined) =>
  (header ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase().split(';'))
    .some(([coding, ...params]) => coding === 'gzip' && !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p)));

const tagValue = (tags: { name: string; value: string }[], name: string) => tags.find((t) => t.name === name)?.value;

/**
 * The tool that found the findings: HawkScan with its version, or for an imported report the tool the import
 * recorded (hawkscanVersion "<tool name> <version>", the version also in a toolVersion or zapVersion tag).
 */
function toolOf(scan: { tags: { name: string; value: string }[]; hawkscanVersion: string }) {
  if (!tagValue(scan.tags, 'importedFrom')) return { toolName: 'HawkScan', toolVersion: scan.hawkscanVersion };
  const version = tagValue(scan.tags, 'toolVersion') ?? tagValue(scan.tags, 'zapVersion') ?? '';
  const label = scan.hawkscanVersion.trim();
  const name = version && label.endsWith(` ${version}`) ? label.slice(0, -version.length - 1) : label;
  return { toolName: name || 'HawkScan', toolVersion: version };
}

export async function scanSarif(
  caller: Caller,
  scanId: string,
  q: ScanSarifQuery,
  request: { mediaType?: string; acceptEncoding?: string },
): Promise<RawResponse> {
  const { scan, app } = await accessibleScan(caller, scanId);
  const used = new Set<string>();
  // The scan's findings read while its baseline is looked for.
  const reading = findingsOfScan(scan, used);
  reading.catch(() => undefined); // awaited below
  const previous = await previousInStream(scan);
  const [current, before, rules, description, coverage] = await Promise.all([
    reading,
    previous && findingsOfScan(previous, used, true),
    rulesOfEnvironment(scan),
    descriptionOf(app.applicationId, q.oasPath),
    coverageOfScan(scan),
  ]);
  const { alerts, findings, absent } = againstBaseline(current, before);
  const gzip = acceptsGzip(request.acceptEncoding);
  const logs = sarifLogs(
    {
      applicationId: app.applicationId,
      applicationName: app.name,
      environmentName: scan.envName,
      scanId: scan.scanId,
      scanStatus: scan.status,
      startedAt: scan.startedAt,
      completedAt: scan.completedAt,
      host: scan.host,
      ...toolOf(scan),
      alerts: alerts.filter((a) => used.has(a.pluginId)),
      findings: findings.map((f) => {
        const rule = rules.get(f.findingHash);
        return {
          ...f,
          status: rule?.status ?? 'UNKNOWN',
          note: rule?.note ?? '',
          triagedBy: rule?.userId ?? '',
          triagedAt: rule?.updatedAt ?? 0,
        };
      }),
      description,
      configurationUri: q.configPath ?? 'stackhawk.yml',
      ...(absent === undefined ? {} : { absentResults: absent }),
      ...(coverage
        ? {
            coverage: {
              verdict: coverage.verdict,
              reasons: coverage.reasons,
              pages: coverage.pages,
              requests: coverage.requests,
              authenticatedRequests: coverage.authenticatedRequests,
            },
          }
        : {}),
    },
    apiLimits(gzip),
  );
  if (q.part > logs.length) throw notFound(`scan ${scanId}'s SARIF log has ${logs.length} part(s), not ${q.part}`);
  const log = logs[q.part - 1];
  const { json, gzipped } = serializedLog(log);
  return new RawResponse({
    statusCode: 200,
    headers: {
      'content-type': `${request.mediaType ?? 'application/sarif+json'}; charset=utf-8`,
      'x-sarif-parts': String(logs.length),
      'x-total-count': String(log.runs[0].properties?.totalResults ?? 0),
      vary: 'accept-encoding',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    },
    body: gzip ? (gzipped ?? gzipSync(json)).toString('base64') : json,
    ...(gzip ? { isBase64Encoded: true } : {}),
  });
}
