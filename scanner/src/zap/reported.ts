import { LIMITS, type ImportedAlert, type ImportedUri, type Severity, type ZapReport } from './report.ts';

// A read ZAP report as the reporting operations take it (POST /api/v1/scan/{scanId}/alerts `alerts`): the one
// mapping both ways in use (the CLI's batches and the service's import operation), so that an imported scan is the
// same whichever way it came.

/** An instance as the reporting operations take it: they have no attack field (the mapping puts it in otherInfo). */
export type ReportedUri = Omit<ImportedUri, 'attack'>;

export interface ReportedAlert {
  pluginId: string;
  name: string;
  severity: Severity;
  description: string;
  cweId: string;
  references: string[];
  uris: ReportedUri[];
}

/**
 * What one findings report may carry: the service's FINDINGS_REPORT_LIMITS (shared/limits.ts; an integration test
 * checks they agree). Batches stay a little under the byte limit for the JSON envelope.
 */
export const BATCH_LIMITS = { maxAlerts: 50, maxUris: 2_000, maxBytes: 4 * 1024 * 1024 - 64 * 1024 } as const;

const cut = (text: string, max: number) => (text.length <= max ? text : text.slice(0, max));

/** Cuts `value` to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function fitBytes(value: string, maxBytes: number): string {
  const bytes = Buffer.from(value);
  if (bytes.length <= maxBytes) return value;
  return bytes
    .subarray(0, Math.max(0, maxBytes))
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

/**
 * The alert's description with ZAP's solution as a last paragraph (the reporting operations have no solution
 * field; getAlertMessages shows the description).
 */
const descriptionOf = (alert: ImportedAlert) =>
  cut(alert.solution ? `${alert.description}\n\nSolution:\n${alert.solution}` : alert.description, LIMITS.description);

function toReportedUri(alert: ImportedAlert, uri: ImportedAlert['uris'][number]): ReportedUri {
  // The reporting operations have no attack field: it leads the other info, which falls back to the alert's.
  const otherInfo = cut(
    [uri.attack ? `Attack: ${uri.attack}` : '', uri.otherInfo || alert.otherInfo].filter(Boolean).join('\n\n'),
    LIMITS.otherInfo,
  );
  const reported = { ...uri, otherInfo };
  // One finding's message item holds at most LIMITS.message bytes (the reader budgeted without the attack).
  const fixed = Buffer.byteLength(
    reported.requestHeader + reported.responseHeader + reported.evidence + reported.otherInfo,
  );
  const room = Math.max(0, LIMITS.message - fixed);
  reported.requestBody = fitBytes(reported.requestBody, Math.floor(room / 2));
  reported.responseBody = fitBytes(reported.responseBody, room - Buffer.byteLength(reported.requestBody));
  return {
    uri: reported.uri,
    requestMethod: reported.requestMethod,
    param: reported.param,
    evidence: reported.evidence,
    otherInfo: reported.otherInfo,
    requestHeader: reported.requestHeader,
    requestBody: reported.requestBody,
    responseHeader: reported.responseHeader,
    responseBody: reported.responseBody,
  };
}

export function toReportedAlerts(report: Pick<ZapReport, 'alerts'>): ReportedAlert[] {
  return report.alerts.map((alert) => ({
    pluginId: alert.pluginId,
    name: alert.name,
    severity: alert.severity,
    description: descriptionOf(alert),
    cweId: alert.cweId,
    references: alert.references,
    uris: alert.uris.map((uri) => toReportedUri(alert, uri)),
  }));
}

/** A URI's share of a request body, in bytes (its JSON). */
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * The alerts cut into findings reports within BATCH_LIMITS, in order: an alert with more URIs than fit is split over
 * several reports (the service merges reports of one plugin). Deterministic: the same report always gives the same
 * batches, so a resumed import can skip those already sent.
 */
export function reportBatches(
  alerts: ReportedAlert[],
  limits: { maxAlerts: number; maxUris: number; maxBytes: number } = BATCH_LIMITS,
): ReportedAlert[][] {
  const batches: ReportedAlert[][] = [];
  let batch: ReportedAlert[] = [];
  let uris = 0;
  let bytes = 0;
  const flush = () => {
    if (batch.length) batches.push(batch);
    batch = [];
    uris = 0;
    bytes = 0;
  };
  for (const alert of alerts) {
    const { uris: alertUris, ...metadata } = alert;
    const metadataBytes = jsonBytes(metadata) + 16;
    let part: ReportedAlert | undefined;
    for (const uri of alertUris) {
      const uriBytes = jsonBytes(uri) + 1;
      const full =
        uris + 1 > limits.maxUris ||
        bytes + uriBytes + (part ? 0 : metadataBytes) > limits.maxBytes ||
        (!part && batch.length >= limits.maxAlerts);
      if (full) {
        flush();
        part = undefined;
      }
      if (!part) {
        part = { ...metadata, uris: [] };
        batch.push(part);
        bytes += metadataBytes;
      }
      part.uris.push(uri);
      uris++;
      bytes += uriBytes;
    }
  }
  flush();
  return batches;
}
