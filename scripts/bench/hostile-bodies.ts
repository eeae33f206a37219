import {
  DESCRIPTION_LIMITS,
  DESCRIPTION_VALIDATION,
  FINDINGS_REPORT_LIMITS,
  SCAN_CONFIG_LIMITS,
} from '../../shared/limits.ts';

// The worst bodies each parsing operation accepts (just inside shared/limits.ts), and a few it refuses, for the
// hostile benchmark (scripts/bench/hostile.ts).

export interface HostileBody {
  /** What the case is, for the results. */
  about: string;
  make(): string;
  /** The operation's own parsing and validation of the body (no storage). */
  parse(text: string): Promise<unknown>;
}

const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}: v`).join('\n');
const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

/** An OpenAPI description with `paths` operations (6 values each once expanded). */
export function descriptionWithPaths(paths: number): string {
  const entries: Record<string, unknown> = {};
  for (let i = 0; i < paths; i++)
    entries[`/items/${i}`] = { get: { operationId: `get${i}`, responses: { '200': { description: 'ok' } } } };
  return JSON.stringify({ openapi: '3.0.3', info: { title: 'bench', version: '1' }, paths: entries });
}

/** An OpenAPI description whose one operation has `count` query parameters (5 values each once expanded). */
export function descriptionWithParameters(count: number): string {
  const parameters = Array.from({ length: count }, (_, i) => ({
    name: `q${i}`,
    in: 'query',
    schema: { type: 'string' },
  }));
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'bench', version: '1' },
    paths: { '/x': { get: { parameters, responses: { '200': { description: 'ok' } } } } },
  });
}

/** A findings report at the limits: maxAlerts alerts, maxUris URIs, close to maxBytes. */
export function fullFindingsReport(): string {
  const perAlert = FINDINGS_REPORT_LIMITS.maxUris / FINDINGS_REPORT_LIMITS.maxAlerts;
  const filler = 'x'.repeat(Math.floor(FINDINGS_REPORT_LIMITS.maxBytes / FINDINGS_REPORT_LIMITS.maxUris) - 200);
  const alerts = Array.from({ length: FINDINGS_REPORT_LIMITS.maxAlerts }, (_, a) => ({
    pluginId: String(10_000 + a),
    name: `Plugin ${a}`,
    severity: 'Medium',
    uris: Array.from({ length: perAlert }, (_, i) => ({
      uri: `/p/${a}/${i}`,
      requestMethod: 'GET',
      responseBody: filler,
    })),
  }));
  return JSON.stringify({ alerts });
}

const scanConfig = async (text: string) => (await import('../../shared/scans/configs.ts')).parseScanConfig(text);
const description = async (text: string) =>
  (await import('../../shared/hosted-assets/openapi-validation.ts')).validateDescription(text);
const findingsReport = async (text: string) => {
  const { scanAlertsBody } = await import('../../shared/scans/inputs.ts');
  const parsed = scanAlertsBody.safeParse(JSON.parse(text));
  if (!parsed.success) throw Object.assign(new Error(parsed.error.message), { statusCode: 400 });
};

export const hostileBodies: Record<string, HostileBody> = {
  scanConfigMostKeys: {
    about: `scan config: ${SCAN_CONFIG_LIMITS.maxNodes / 2 - 10} keys (just under maxNodes)`,
    make: () => keys(SCAN_CONFIG_LIMITS.maxNodes / 2 - 10),
    parse: scanConfig,
  },
  scanConfigDeepest: {
    about: `scan config: nested ${SCAN_CONFIG_LIMITS.maxDepth - 1} deep`,
    make: () => `app: ${nested(SCAN_CONFIG_LIMITS.maxDepth - 2)}`,
    parse: scanConfig,
  },
  scanConfigRefused90kKeys: {
    about: 'scan config: 90,000 keys (refused: 80 s before the fix)',
    make: () => keys(90_000),
    parse: scanConfig,
  },
  scanConfigRefusedMillionDeep: {
    about: 'scan config: 1,000,000 deep (refused: ~940 MB before the fix)',
    make: () => '['.repeat(1_000_000),
    parse: scanConfig,
  },
  descriptionMostPaths: {
    about: `API description: ${Math.floor(DESCRIPTION_LIMITS.maxExpandedNodes / 6.2)} paths (just under maxExpandedNodes)`,
    make: () => descriptionWithPaths(Math.floor(DESCRIPTION_LIMITS.maxExpandedNodes / 6.2)),
    parse: description,
  },
  // Within every input limit, yet the validator's cost grows faster than the size: bounded by the worker's time limit.
  descriptionMostParameters: {
    about: `API description: one operation with ${Math.floor(DESCRIPTION_LIMITS.maxExpandedNodes / 5.05)} parameters (just under maxExpandedNodes; stopped at ${DESCRIPTION_VALIDATION.timeoutMs / 1000} s)`,
    make: () => descriptionWithParameters(Math.floor(DESCRIPTION_LIMITS.maxExpandedNodes / 5.05)),
    parse: description,
  },
  descriptionRefused50kPaths: {
    about: 'API description: 50,000 paths (refused: 33 s and 2 GB before the fix)',
    make: () => descriptionWithPaths(50_000),
    parse: description,
  },
  findingsReportFull: {
    about: `findings report: ${FINDINGS_REPORT_LIMITS.maxAlerts} alerts, ${FINDINGS_REPORT_LIMITS.maxUris} URIs, ~${FINDINGS_REPORT_LIMITS.maxBytes} bytes (parse and validate only)`,
    make: fullFindingsReport,
    parse: findingsReport,
  },
};
