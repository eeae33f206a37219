import { UNSAFE_TEXT_RULE, unsafeCharacterIn } from '../text.ts';

// The result of reading a ZAP report, in the shape the reporting operations take (POST /api/v1/scan/{scanId}/alerts),
// and the mapping every format shares: severities, identities, duplicates, text clean-up and size limits. Tables
// keyed by report text are Maps (a plain object would answer "constructor" or "__proto__" from its prototype).

export const ZAP_FORMATS = ['xml', 'xml-plus', 'json', 'json-plus', 'sarif'] as const;
export type ZapFormat = (typeof ZAP_FORMATS)[number];

export const SEVERITIES = ['High', 'Medium', 'Low', 'Info'] as const;
export type Severity = (typeof SEVERITIES)[number];
/** ZAP riskcode 0..3. */
const RISKS = new Map<string, Severity>([
  ['0', 'Info'],
  ['1', 'Low'],
  ['2', 'Medium'],
  ['3', 'High'],
]);
/** ZAP confidence 0..4. */
const CONFIDENCES = new Map([
  ['0', 'False Positive'],
  ['1', 'Low'],
  ['2', 'Medium'],
  ['3', 'High'],
  ['4', 'Confirmed'],
]);

export interface ImportedUri {
  uri: string;
  requestMethod: string;
  param: string;
  attack: string;
  evidence: string;
  otherInfo: string;
  requestHeader: string;
  requestBody: string;
  responseHeader: string;
  responseBody: string;
}

export interface ImportedAlert {
  /** ZAP's alertRef when the report has it (variants such as 10038-1 stay distinct), else its pluginid. */
  pluginId: string;
  name: string;
  severity: Severity;
  confidence: string;
  description: string;
  solution: string;
  otherInfo: string;
  cweId: string;
  wascId: string;
  references: string[];
  uris: ImportedUri[];
}

/** Something of the report that was not imported as it stood, and why. */
export interface SkippedItem {
  where: string;
  reason: string;
}

export interface ZapReport {
  format: ZapFormat;
  /** ZAP's version as the report states it (may be a weekly build name such as D-2021-03-29). */
  zapVersion: string;
  /** The scan's host: the site with the most instances (the first when tied). */
  host: string;
  sites: string[];
  alerts: ImportedAlert[];
  /** Alert URIs (instances) kept. */
  uriCount: number;
  skipped: SkippedItem[];
}

/** Bad input: the message names what is wrong and where (an element path, or a line and column). */
export class ZapReportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZapReportError';
  }
}

/** More alerts or findings than the reader was asked to take (`ReadLimits`): found while mapping, before the rest. */
export class ReportTooLargeError extends ZapReportError {
  constructor(message: string) {
    super(message);
    this.name = 'ReportTooLargeError';
  }
}

/** Limits a reader stops at as soon as they are passed (the service's import: IMPORT_LIMITS); none by default. */
export interface ReadLimits {
  maxAlerts?: number;
  maxUris?: number;
}

/** Skipped items listed one by one; beyond, one summary entry counts the rest (the answer stays small). */
export const MAX_SKIPPED_LISTED = 100;

/** A `skipped` list that keeps the first MAX_SKIPPED_LISTED items and counts the others. */
export class SkippedItems {
  readonly listed: SkippedItem[] = [];
  unlisted = 0;
  push(item: SkippedItem): void {
    if (this.listed.length < MAX_SKIPPED_LISTED) this.listed.push(item);
    else this.unlisted++;
  }
  /** The list as reports carry it: the first items, then `{where: 'report', reason: 'N more ...'}` when there are more. */
  toList(): SkippedItem[] {
    if (this.unlisted === 0) return this.listed;
    return [
      ...this.listed,
      { where: 'report', reason: `${this.unlisted} more skipped or shortened items not listed (as those above)` },
    ];
  }
}

/** A label (alert name, site, version) under the rule for displayable text: refused, naming where and the character. */
export function displayable(value: string, what: string, where: string): string {
  const found = unsafeCharacterIn(value);
  if (found) throw new ZapReportError(`${where}: ${what} ${UNSAFE_TEXT_RULE} (${found} found)`);
  return value;
}

/**
 * Size limits of one finding, the same as the reporting operations' (shared/scans/inputs.ts). Identity fields
 * beyond them reject the report; long evidence, other info and request/response messages are cut to fit and the
 * cut is listed in `skipped`.
 */
export const LIMITS = {
  siteName: 2048,
  version: 64,
  pluginId: 64,
  name: 512,
  uri: 8192,
  param: 4096,
  attack: 4096,
  evidence: 16_384,
  otherInfo: 16_384,
  description: 65_536,
  cweId: 32,
  reference: 2048,
  references: 100,
  header: 65_536,
  /** Request and response of one finding together (one DynamoDB item holds them). */
  message: 300_000,
} as const;

/** What a format reader hands to the mapping: ZAP's fields as strings ('' when absent). */
export interface RawInstance extends Omit<ImportedUri, 'requestMethod'> {
  where: string;
  method: string;
}

export interface RawAlert {
  where: string;
  pluginId: string;
  alertRef: string;
  name: string;
  riskcode: string;
  confidence: string;
  description: string;
  solution: string;
  otherInfo: string;
  references: string[];
  cweId: string;
  wascId: string;
  /** ZAP's own count of occurrences ('' when absent): legacy reports list at most 20 instances of more. */
  count: string;
  instances: RawInstance[];
}

export interface RawSite {
  where: string;
  name: string;
  alerts: RawAlert[];
}

/** The element names (XML) or keys (JSON) of an instance's request and response. */
export interface MessageNames {
  requestHeader: string;
  requestBody: string;
  responseHeader: string;
  responseBody: string;
}

/**
 * An alert of the traditional XML or JSON report (they share field names), read through `field` (the value of a
 * name, '' when absent). Values are trimmed (reformatted reports indent them) except requests and responses.
 */
export function traditionalAlert(where: string, field: (name: string) => string, instances: RawInstance[]): RawAlert {
  const trimmed = (name: string) => field(name).trim();
  return {
    where,
    pluginId: trimmed('pluginid'),
    alertRef: trimmed('alertRef'),
    name: trimmed('name') || trimmed('alert'),
    riskcode: trimmed('riskcode'),
    confidence: trimmed('confidence'),
    description: trimmed('desc'),
    solution: trimmed('solution'),
    otherInfo: trimmed('otherinfo'),
    references: splitReferences(field('reference')),
    cweId: trimmed('cweid'),
    wascId: trimmed('wascid'),
    count: trimmed('count'),
    instances,
  };
}

/** An instance of the traditional XML or JSON report; `names` says where its request and response are. */
export function traditionalInstance(where: string, field: (name: string) => string, names: MessageNames): RawInstance {
  const trimmed = (name: string) => field(name).trim();
  return {
    where,
    uri: trimmed('uri'),
    method: trimmed('method'),
    param: trimmed('param'),
    attack: trimmed('attack'),
    evidence: trimmed('evidence'),
    otherInfo: trimmed('otherinfo'),
    requestHeader: field(names.requestHeader),
    requestBody: field(names.requestBody),
    responseHeader: field(names.responseHeader),
    responseBody: field(names.responseBody),
  };
}

/** ZAP's HTML text fields (`<p>...</p>` paragraphs, `<br>`) as plain text with paragraphs on their own lines. */
export function htmlToText(html: string): string {
  return html
    .replace(/\r\n?/g, '\n')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p>/gi, '\n\n')
    .replace(/<\/?p>/gi, '')
    .trim();
}

/** A reference field: one URL per paragraph or line. */
export function splitReferences(text: string): string[] {
  return htmlToText(text)
    .split(/\n+/)
    .map((line) => line.trim())
    .filter(Boolean);
}

/** `-1`, `0` and absent mean "none" for ZAP's CWE and WASC ids. */
const idOrNone = (value: string) => (value === '' || value === '-1' || value === '0' ? '' : value);

function required(value: string, max: number, what: string, where: string): string {
  if (value.length > max)
    throw new ZapReportError(`${where}: ${what} is ${value.length} characters long (at most ${max})`);
  return value;
}

/** Cuts a long field to fit, noting it. */
function capped(value: string, max: number, what: string, where: string, skipped: SkippedItems): string {
  if (value.length <= max) return value;
  skipped.push({ where, reason: `${what} cut from ${value.length} to ${max} characters` });
  return value.slice(0, max);
}

/**
 * A raw header block as HTTP has it: lines without the indentation a reformatted report adds (header lines never
 * start with whitespace), no blank lines before the request or status line, line endings kept.
 */
const headerBlock = (raw: string) => raw.replace(/^[ \t]+/gm, '').replace(/^[\r\n]+/, '');

function toUri(raw: RawInstance, skipped: SkippedItems): ImportedUri {
  const { where } = raw;
  const uri = required(raw.uri, LIMITS.uri, 'uri', where);
  if (!uri) throw new ZapReportError(`${where}: the instance has no uri`);
  const method = (raw.method || 'GET').toUpperCase();
  if (!/^[A-Z]{1,16}$/.test(method))
    throw new ZapReportError(`${where}: method ${JSON.stringify(method.slice(0, 40))} is not an HTTP method`);
  const requestHeader = capped(headerBlock(raw.requestHeader), LIMITS.header, 'request header', where, skipped);
  const responseHeader = capped(headerBlock(raw.responseHeader), LIMITS.header, 'response header', where, skipped);
  const evidence = capped(raw.evidence, LIMITS.evidence, 'evidence', where, skipped);
  const otherInfo = capped(htmlToText(raw.otherInfo), LIMITS.otherInfo, 'other info', where, skipped);
  // Bodies share what the message item has left after the other fields (measured in bytes, as DynamoDB does).
  const room = LIMITS.message - Buffer.byteLength(requestHeader + responseHeader + evidence + otherInfo);
  // Bodies are trimmed like every other value (a reformatted report indents them).
  const requestBody = fitBytes(raw.requestBody.trim(), Math.floor(room / 2), 'request body', where, skipped);
  const responseBody = fitBytes(
    raw.responseBody.trim(),
    room - Buffer.byteLength(requestBody),
    'response body',
    where,
    skipped,
  );
  return {
    uri,
    requestMethod: method,
    param: required(raw.param, LIMITS.param, 'param', where),
    attack: capped(raw.attack, LIMITS.attack, 'attack', where, skipped),
    evidence,
    otherInfo,
    requestHeader,
    requestBody,
    responseHeader,
    responseBody,
  };
}

function fitBytes(value: string, maxBytes: number, what: string, where: string, skipped: SkippedItems): string {
  const bytes = Buffer.from(value);
  if (bytes.length <= maxBytes) return value;
  skipped.push({ where, reason: `${what} cut from ${bytes.length} to ${maxBytes} bytes` });
  // Cutting bytes may split a character: the decoder turns the broken tail into U+FFFD, dropped here.
  return bytes
    .subarray(0, Math.max(0, maxBytes))
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

/**
 * The sites' alerts as alerts of one scan. Alerts are identified by alertRef (else pluginid), name and risk, as
 * ZAP reports the same alert once per site: the same identity in several sites (or twice in one site) is one alert
 * with the instances of all. Two alerts sharing a plugin id with a different name or risk stay apart: the later
 * gets the id `<id>_2`, `<id>_3`... Identical instances of one alert count once.
 */
export function mapSites(format: ZapFormat, zapVersion: string, sites: RawSite[], limits: ReadLimits = {}): ZapReport {
  if (sites.length === 0)
    throw new ZapReportError('the report has no site: a ZAP report holds one site element or entry per scanned host');
  return {
    format,
    zapVersion: displayable(zapVersion.slice(0, LIMITS.version), 'version', 'the report'),
    ...mapAlerts(sites, limits),
  };
}

/** The alerts of a report of any tool, read as RawSites, with the rules of mapSites. */
export function mapAlerts(sites: RawSite[], limits: ReadLimits = {}): Omit<ZapReport, 'format' | 'zapVersion'> {
  const { maxAlerts = Infinity, maxUris = Infinity } = limits;
  const skipped = new SkippedItems();
  const alerts = new Map<string, ImportedAlert & { seen: Set<string> }>();
  // id -> identities (name, risk) using it, each with its number in order of appearance (1: the id itself)
  const variants = new Map<string, Map<string, number>>();
  let uriCount = 0;
  for (const site of sites) {
    displayable(required(site.name, LIMITS.siteName, 'site name', site.where), 'site name', site.where);
    for (const raw of site.alerts) {
      const { where } = raw;
      const baseId = raw.alertRef || raw.pluginId;
      if (!baseId) throw new ZapReportError(`${where}: the alert has no pluginid`);
      if (!/^[A-Za-z0-9.-]{1,60}$/.test(baseId))
        throw new ZapReportError(
          `${where}: plugin id ${JSON.stringify(baseId.slice(0, 80))} must be 1 to 60 letters, digits, . or -`,
        );
      const severity = RISKS.get(raw.riskcode);
      if (!severity)
        throw new ZapReportError(`${where}: riskcode ${JSON.stringify(raw.riskcode.slice(0, 40))} is not 0, 1, 2 or 3`);
      const name = displayable(required(raw.name, LIMITS.name, 'name', where), 'name', where);
      if (!name) throw new ZapReportError(`${where}: the alert has no name`);
      if (raw.instances.length === 0) {
        // ZAP itself counted no occurrence (e.g. a false positive kept in the report): nothing to store. An alert
        // that counts occurrences but lists none is a truncated report.
        if (raw.count === '' || raw.count === '0') {
          skipped.push({ where, reason: `alert ${baseId} "${name}" has no instances` });
          continue;
        }
        throw new ZapReportError(`${where}: alert ${baseId} "${name}" counts ${raw.count} instances but lists none`);
      }
      const identity = `${name}\n${severity}`;
      let used = variants.get(baseId);
      if (!used) variants.set(baseId, (used = new Map()));
      let number = used.get(identity);
      if (number === undefined) used.set(identity, (number = used.size + 1));
      const pluginId = number === 1 ? baseId : `${baseId}_${number}`;
      let alert = alerts.get(pluginId);
      if (!alert) {
        if (alerts.size >= maxAlerts)
          throw new ReportTooLargeError(`more than ${maxAlerts} alerts (${where} is alert ${alerts.size + 1})`);
        alert = {
          pluginId,
          name,
          severity,
          confidence: CONFIDENCES.get(raw.confidence) ?? '',
          description: capped(htmlToText(raw.description), LIMITS.description, 'description', where, skipped),
          solution: capped(htmlToText(raw.solution), LIMITS.description, 'solution', where, skipped),
          otherInfo: capped(htmlToText(raw.otherInfo), LIMITS.otherInfo, 'other info', where, skipped),
          cweId: required(idOrNone(raw.cweId), LIMITS.cweId, 'cweid', where),
          wascId: required(idOrNone(raw.wascId), LIMITS.cweId, 'wascid', where),
          references: raw.references
            .slice(0, LIMITS.references)
            .map((r) => capped(r, LIMITS.reference, 'reference', where, skipped)),
          uris: [],
          seen: new Set(),
        };
        if (raw.references.length > LIMITS.references)
          skipped.push({
            where,
            reason: `${raw.references.length - LIMITS.references} references beyond ${LIMITS.references} left out`,
          });
        alerts.set(pluginId, alert);
      }
      let duplicates = 0;
      for (const instance of raw.instances) {
        const uri = toUri(instance, skipped);
        const key = JSON.stringify([uri.requestMethod, uri.uri, uri.param, uri.attack, uri.evidence, uri.otherInfo]);
        if (alert.seen.has(key)) duplicates++;
        else {
          if (++uriCount > maxUris)
            throw new ReportTooLargeError(`more than ${maxUris} findings (alert URIs; ${instance.where} is the next)`);
          alert.seen.add(key);
          alert.uris.push(uri);
        }
      }
      if (duplicates > 0)
        skipped.push({
          where,
          reason: `${duplicates} duplicate instance${duplicates > 1 ? 's' : ''} of alert ${pluginId} counted once`,
        });
      const count = Number(raw.count);
      if (raw.count !== '' && count > raw.instances.length) {
        skipped.push({
          where,
          reason: `ZAP counted ${count} instances of alert ${baseId} but the report lists ${raw.instances.length}`,
        });
      }
    }
  }
  const kept = [...alerts.values()].map(({ seen: _seen, ...alert }) => alert);
  // Reports also list third-party sites the browser fetched from: the host is the site with the most instances.
  const counts = sites.map((site) => site.alerts.reduce((n, a) => n + a.instances.length, 0));
  const host = sites[counts.reduce((best, count, i) => (count > counts[best] ? i : best), 0)];
  return {
    host: host?.name ?? '',
    sites: sites.map((site) => site.name),
    alerts: kept,
    uriCount: kept.reduce((n, a) => n + a.uris.length, 0),
    skipped: skipped.toList(),
  };
}

/** Distinct URIs of the report's findings (the scan's urlCount). */
export const urlCountOf = (report: Pick<ZapReport, 'alerts'>) =>
  new Set(report.alerts.flatMap((a) => a.uris.map((u) => u.uri))).size;
