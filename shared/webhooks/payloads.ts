import { alertsOfScan, countedAlertUris, getScan } from '../results/scan-repository.ts';
import {
  type AlertRecord,
  type ScanRecord,
  reportStatus,
  TRIAGE_STATUSES,
  type TriageStatus,
} from '../results/model.ts';
import { rulesOf } from '../results/finding-repository.ts';
import { SEVERITIES } from '../input/severities.ts';
import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { getItem } from '../db/query.ts';
import { slackEscape, teamsEscape } from '../input/markup.ts';
import type { OutboxEvent, WebhookFormat } from './model.ts';

// The bodies webhooks deliver (docs/WEBHOOKS.md, Payloads). `json` follows StackHawk's webhook shape
// (`{service, scanCompleted: {scan, completedScanStats, findings}}`, numbers as strings as StackHawk sends them), so
// consumers written for StackHawk's (DefectDojo's StackHawk parser, Port) read ours unchanged; `slack` is a Block Kit
// message for an incoming webhook; `teams` an Adaptive Card for a Teams Workflows webhook.

/** Bodies above this are cut: fewer paths per finding (totals stay exact). SQS and DynamoDB items stay well within limits. */
export const MAX_BODY_BYTES = 200 * 1024;
/** Paths listed per finding, at most (each finding's totalCount and pathStats count them all). */
const PATH_LIMITS = [100, 20, 5, 0];

/** Links into the dashboard (PUBLIC_URL; `npm start` sets its own address). */
const link = (path: string) => `${config.publicUrl ?? ''}${path}`;

export interface ScanFinding {
  pluginId: string;
  pluginName: string;
  severity: string;
  host: string;
  paths: { path: string; method: string; status: string; pathURL: string }[];
  pathStats: { status: string; count: number }[];
  totalCount: string;
  category: string;
  findingURL: string;
}

/** A scan's findings in StackHawk's webhook shape, each with at most `pathLimit` paths (statuses from triage). */
async function scanFindings(scan: ScanRecord, alerts: AlertRecord[], pathLimit: number): Promise<ScanFinding[]> {
  const scanPath = `/org/${scan.organizationId}/scan/${scan.scanId}`;
  const findings: ScanFinding[] = [];
  for (const alert of alerts) {
    const uris = pathLimit ? await countedAlertUris(scan, alert, 0, pathLimit) : [];
    const rules = await rulesOf(
      scan,
      uris.map((u) => u.findingHash),
    );
    const byStatus = scan.stats?.byPluginStatus?.[alert.pluginId];
    const pathStats = byStatus
      ? TRIAGE_STATUSES.filter((s) => byStatus[s] > 0).map((s) => ({ status: reportStatus(s), count: byStatus[s] }))
      : [{ status: 'NEW', count: alert.uriCount }];
    findings.push({
      pluginId: alert.pluginId,
      pluginName: alert.name,
      severity: alert.severity,
      host: scan.host,
      paths: uris.map((u) => ({
        path: u.uri,
        method: u.requestMethod.toUpperCase(),
        status: reportStatus((rules.get(u.findingHash)?.status ?? 'UNKNOWN') as TriageStatus),
        pathURL: link(`${scanPath}/finding/${u.alertUriId}/${u.msgId}`),
      })),
      pathStats: mergeStats(pathStats),
      totalCount: String(alert.uriCount),
      category: alert.cweId ? `CWE-${alert.cweId}` : '',
      findingURL: link(`${scanPath}/alert/${alert.pluginId}`),
    });
  }
  return findings;
}

/** ADD_COMMENT and UNKNOWN both read NEW: one entry per reported status. */
function mergeStats(stats: { status: string; count: number }[]) {
  const merged = new Map<string, number>();
  for (const { status, count } of stats) merged.set(status, (merged.get(status) ?? 0) + count);
  return [...merged].map(([status, count]) => ({ status, count }));
}

function scanView(event: OutboxEvent) {
  const d = event.data as Record<string, string | number | undefined>;
  return {
    id: String(d.scanId),
    hawkscanVersion: String(d.hawkscanVersion ?? ''),
    env: String(d.envName),
    envId: String(d.envId),
    status: String(d.status),
    application: String(d.appName),
    applicationId: event.applicationId,
    startedTimestamp: new Date(Number(d.startedAt)).toISOString(),
    scanURL: link(`/org/${event.organizationId}/scan/${d.scanId}`),
  };
}

/** What the chat formats read of the JSON body: each event's scan link and figures. */
type JsonBody = Record<
  string,
  | string
  | {
      scan?: { scanURL: string };
      completedScanStats?: { scanResultsStats: Record<string, string> };
      [field: string]: unknown;
    }
>;

/** The JSON body of an event (StackHawk's shape), its findings cut to fit MAX_BODY_BYTES. */
/**
 * A hosted scan's coverage verdict (docs/HOSTED-SCANS.md, Coverage), read from its record by key: the coverage
 * operation lives in scans/, above this layer. Added beside StackHawk's fields, so their consumers read on.
 */
const coverageVerdictOf = async (scan: ScanRecord) =>
  (await getItem(keys.scanCoverage(scan.applicationId, scan.environmentId, scan.scanId)))?.coverage as
    { verdict: string; reasons: string[] } | undefined;

export async function jsonBody(event: OutboxEvent): Promise<JsonBody> {
  const d = event.data as Record<string, string | number | undefined>;
  if (event.type === 'scanStarted') return { service: 'StackHawk', scanStarted: { scan: scanView(event) } };
  if (event.type === 'findingStatusChanged')
    return {
      service: 'StackHawk',
      findingStatusChanged: {
        application: d.appName,
        applicationId: event.applicationId,
        env: d.envName,
        envId: d.envId,
        finding: {
          findingHash: d.findingHash,
          pluginId: d.pluginId,
          severity: d.severity,
          method: d.requestMethod,
          path: d.path,
        },
        oldStatus: reportStatus(d.oldStatus as TriageStatus),
        newStatus: reportStatus(d.newStatus as TriageStatus),
        oldTriageStatus: d.oldStatus,
        newTriageStatus: d.newStatus,
        note: d.note,
        changedTimestamp: new Date(event.occurredAt).toISOString(),
      },
    };
  if (event.type === 'riskAcceptanceExpired') {
    const iso = (ms: string | number | undefined) => (ms ? new Date(Number(ms)).toISOString() : '');
    return {
      service: 'StackHawk',
      riskAcceptanceExpired: {
        application: d.appName,
        applicationId: event.applicationId,
        env: d.envName,
        envId: d.envId,
        finding: {
          findingHash: d.findingHash,
          pluginId: d.pluginId,
          severity: d.severity,
          method: d.requestMethod,
          path: d.path,
        },
        oldStatus: reportStatus(d.oldStatus as TriageStatus),
        newStatus: reportStatus(d.newStatus as TriageStatus),
        acceptedBy: d.acceptedBy,
        acceptedTimestamp: iso(d.acceptedAt),
        acceptedUntil: iso(d.acceptedUntil),
        acceptanceNote: d.acceptanceNote,
        expiredTimestamp: new Date(event.occurredAt).toISOString(),
      },
    };
  }
  if (event.type === 'findingOverdue')
    return {
      service: 'StackHawk',
      findingOverdue: {
        application: d.appName,
        applicationId: event.applicationId,
        env: d.envName,
        envId: d.envId,
        finding: {
          findingHash: d.findingHash,
          pluginId: d.pluginId,
          severity: d.severity,
          method: d.requestMethod,
          path: d.path,
        },
        status: reportStatus(d.status as TriageStatus),
        triageStatus: d.status,
        slaDays: d.slaDays,
        firstSeenTimestamp: new Date(Number(d.firstSeen)).toISOString(),
        dueTimestamp: new Date(Number(d.dueAt)).toISOString(),
        overdueTimestamp: new Date(event.occurredAt).toISOString(),
      },
    };
  // scanCompleted, scanErrored: the scan's figures and findings as they are now (a scan's findings are fixed once it ends).
  const scan = await getScan({
    applicationId: event.applicationId,
    environmentId: String(d.envId),
    scanId: String(d.scanId),
  });
  const alerts = scan ? await alertsOfScan(scan) : [];
  alerts.sort(
    (a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || a.pluginId.localeCompare(b.pluginId),
  );
  const coverage = scan && (await coverageVerdictOf(scan));
  const count = (severity: 'High' | 'Medium' | 'Low') => scan?.stats?.urisBySeverity?.[severity] ?? 0;
  const triaged = (severity: 'High' | 'Medium' | 'Low') =>
    (scan?.stats?.byStatus?.FALSE_POSITIVE?.[severity] ?? 0) + (scan?.stats?.byStatus?.RISK_ACCEPTED?.[severity] ?? 0);
  const summary = {
    scan: scanView(event),
    scanDuration: String(d.durationSeconds ?? 0),
    spiderDuration: '0',
    completedScanStats: {
      urlsCount: String(d.urlCount ?? 0),
      duration: String(d.durationSeconds ?? 0),
      scanResultsStats: {
        totalCount: String(scan?.stats?.totalAlerts ?? 0),
        lowCount: String(count('Low')),
        mediumCount: String(count('Medium')),
        highCount: String(count('High')),
        lowTriagedCount: String(triaged('Low')),
        mediumTriagedCount: String(triaged('Medium')),
        highTriagedCount: String(triaged('High')),
      },
    },
    ...(coverage ? { coverage: { verdict: coverage.verdict, reasons: coverage.reasons } } : {}),
  };
  for (const limit of PATH_LIMITS) {
    const body = {
      service: 'StackHawk',
      [event.type]: { ...summary, findings: scan ? await scanFindings(scan, alerts, limit) : [] },
    };
    if (Buffer.byteLength(JSON.stringify(body)) <= MAX_BODY_BYTES || limit === 0) return body;
  }
  throw new Error('unreachable');
}

const TITLES: Record<OutboxEvent['type'], string> = {
  scanStarted: 'Scan started',
  scanCompleted: 'Scan completed',
  scanErrored: 'Scan errored',
  findingStatusChanged: 'Finding triaged',
  riskAcceptanceExpired: 'Risk acceptance expired',
  findingOverdue: 'Finding overdue',
};

/** The one-paragraph summary chat formats show: what happened, where, and the figures. */
function summaryOf(event: OutboxEvent, body: JsonBody): { title: string; facts: [string, string][]; url: string } {
  const d = event.data as Record<string, string | number | undefined>;
  const part = body[event.type] as Exclude<JsonBody[string], string>;
  const facts: [string, string][] = [
    ['Application', String(d.appName)],
    ['Environment', String(d.envName)],
  ];
  let url = link(`/org/${event.organizationId}/app/${event.applicationId}/env/${d.envId}`);
  if (event.type === 'scanCompleted' || event.type === 'scanErrored') {
    const stats = part.completedScanStats!.scanResultsStats;
    facts.push(['Findings', `High ${stats.highCount} · Medium ${stats.mediumCount} · Low ${stats.lowCount}`]);
    facts.push(['Duration', `${d.durationSeconds ?? 0} s`]);
    url = part.scan!.scanURL;
  } else if (event.type === 'scanStarted') {
    facts.push(['Host', String(d.host ?? '')]);
    url = part.scan!.scanURL;
  } else {
    facts.push(['Finding', `${d.pluginId} ${String(d.requestMethod).toUpperCase()} ${d.path}`]);
    if (event.type === 'findingOverdue') {
      facts.push(['Severity', String(d.severity)]);
      facts.push(['Due', new Date(Number(d.dueAt)).toISOString()]);
    } else facts.push(['Status', `${d.oldStatus} → ${d.newStatus}`]);
    if (event.type === 'riskAcceptanceExpired')
      facts.push(['Accepted until', new Date(Number(d.acceptedUntil)).toISOString()]);
  }
  return { title: `${TITLES[event.type]}: ${d.appName} / ${d.envName}`, facts, url };
}

/**
 * `text`, escaped for Slack (slackEscape) when asked, in at most `max` characters: cut with an ellipsis, never inside an escape
 * or a surrogate pair. Slack refuses a message whose texts exceed Block Kit's limits (invalid_blocks), so a long
 * finding path is shortened rather than the message lost.
 */
export function slackText(text: string, max: number, escape: boolean): string {
  const whole = escape ? slackEscape(text) : text;
  if (whole.length <= max) return whole;
  let out = '';
  for (const char of text) {
    const piece = escape ? slackEscape(char) : char;
    if (out.length + piece.length > max - 1) break;
    out += piece;
  }
  return `${out}…`;
}

/**
 * Slack Block Kit (incoming webhook): text as the notification fallback, blocks for the message, within Block Kit's
 * limits (https://api.slack.com/reference/block-kit/blocks): a header's plain text at most 150 characters, a section
 * field's text at most 2000, a button's url at most 3000. Names and paths go in plain_text objects, and the fallback
 * is sent unformatted (`mrkdwn: false`): mrkdwn has no escape for `*bold*`, `_italic_`, `~strike~` or code
 * (https://api.slack.com/reference/surfaces/formatting), so a name would bring its own formatting.
 */
function slackBody(summary: ReturnType<typeof summaryOf>) {
  return {
    text: slackText(summary.title, 3000, true),
    mrkdwn: false,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: slackText(summary.title, 150, false) } },
      {
        type: 'section',
        fields: summary.facts.map(([name, value]) => ({
          type: 'plain_text',
          text: `${name}\n${slackText(value, 2000 - name.length - 1, false)}`,
        })),
      },
      ...(summary.url.startsWith('http') && summary.url.length <= 3000
        ? [
            {
              type: 'actions',
              elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open' }, url: summary.url }],
            },
          ]
        : []),
    ],
  };
}

/** A Teams Workflows webhook takes a message with one Adaptive Card attachment, its texts escaped (teamsEscape). */
function teamsBody(summary: ReturnType<typeof summaryOf>) {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: teamsEscape(summary.title), weight: 'Bolder', size: 'Medium', wrap: true },
            {
              type: 'FactSet',
              facts: summary.facts.map(([title, value]) => ({ title: teamsEscape(title), value: teamsEscape(value) })),
            },
          ],
          ...(summary.url.startsWith('http')
            ? { actions: [{ type: 'Action.OpenUrl', title: 'Open', url: summary.url }] }
            : {}),
        },
      },
    ],
  };
}

/** What a test delivery (testWebhook) says about the subscription it tries. */
export interface TestTarget {
  webhookId: string;
  organizationId: string;
  name: string;
  events: string[];
  format: WebhookFormat;
}

/**
 * The body of a test delivery (event `ping`, docs/WEBHOOKS.md, Testing and redelivering), in the subscription's format:
 * the JSON one names the subscription and the events it receives; the chat formats are a short message saying so.
 */
export function testBody(target: TestTarget, eventId: string, at: number): string {
  if (target.format === 'json')
    return JSON.stringify({
      service: 'StackHawk',
      ping: {
        eventId,
        webhookId: target.webhookId,
        organizationId: target.organizationId,
        name: target.name,
        events: target.events,
        message: 'A test delivery from hawk-api: this receiver is reachable. Nothing to do.',
        sentTimestamp: new Date(at).toISOString(),
      },
    });
  const summary = {
    title: `Test message from hawk-api${target.name ? `: ${target.name}` : ''}`,
    facts: [
      ['Events', target.events.join(', ')],
      ['Sent', new Date(at).toISOString()],
    ] as [string, string][],
    url: link(`/org/${target.organizationId}/integrations`),
  };
  return JSON.stringify(target.format === 'slack' ? slackBody(summary) : teamsBody(summary));
}

/** The body of an event for a subscription's format (JSON text, as signed and sent). */
export async function renderBodies(
  event: OutboxEvent,
  formats: Set<WebhookFormat>,
): Promise<Map<WebhookFormat, string>> {
  const json = await jsonBody(event);
  const bodies = new Map<WebhookFormat, string>();
  if (formats.has('json')) bodies.set('json', JSON.stringify(json));
  if (formats.has('slack')) bodies.set('slack', JSON.stringify(slackBody(summaryOf(event, json))));
  if (formats.has('teams')) bodies.set('teams', JSON.stringify(teamsBody(summaryOf(event, json))));
  return bodies;
}
