import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ExpectedAlert } from './zap-expected.ts';

// What each Wapiti sample should import as, counted straight from the file without the importer's parser: XML by
// cutting the text at its category and entry tags, JSON with JSON.parse. The rules applied are the documented ones
// (docs/IMPORTS.md, Wapiti): an alert per (category, severity), levels 4 and 3 High, 2 Medium, 1 Low, 0 Info;
// identical entries count once; the URL is the entry's path on the target's origin; the first CWE of the
// category's reference titles is its CWE id.

export const WAPITI_FIXTURES = fileURLToPath(new URL('./fixtures/wapiti/', import.meta.url));
export const wapitiFixture = (name: string) => readFileSync(WAPITI_FIXTURES + name, 'utf8');
/** The samples that are Wapiti reports (not the OpenVAS-style output). */
export const WAPITI_SAMPLES = readdirSync(WAPITI_FIXTURES).filter((f) => /^wapiti-(json|xml)_/.test(f));

export interface WapitiEntry {
  category: string;
  cwe: string;
  level: number;
  method: string;
  path: string;
  parameter: string;
  info: string;
  curl: string;
  request: string;
}

const unCdata = (s: string) => s.replace(/^<!\[CDATA\[([\s\S]*)\]\]>$/, '$1');
const decode = (s: string) => unCdata(s.trim()).replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>');
const tag = (block: string, name: string) =>
  decode(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(block)?.[1] ?? '');
const cweIn = (titles: string[]) => titles.map((t) => /CWE-(\d+)/.exec(t)?.[1]).find(Boolean) ?? '';

/** Every entry of a sample, read with string cuts (XML) or JSON.parse (JSON), and the report's target. */
export function wapitiEntries(file: string): { entries: WapitiEntry[]; target: string } {
  const text = wapitiFixture(file);
  if (file.startsWith('wapiti-json')) {
    const report = JSON.parse(text);
    const entries: WapitiEntry[] = [];
    for (const section of ['vulnerabilities', 'anomalies', 'additionals'])
      for (const [category, list] of Object.entries(report[section] ?? {}))
        for (const e of list as Record<string, string | number>[])
          entries.push({
            category,
            cwe: cweIn(Object.keys(report.classifications[category]?.ref ?? {})),
            level: Number(e.level),
            method: String(e.method),
            path: String(e.path),
            parameter: String(e.parameter),
            info: String(e.info),
            curl: String(e.curl_command),
            request: String(e.http_request),
          });
    return { entries, target: report.infos.target };
  }
  const entries: WapitiEntry[] = [];
  for (const block of text.split(/<(?:vulnerability|anomaly|additional) name="/).slice(1)) {
    const category = block.slice(0, block.indexOf('"'));
    const cwe = cweIn([...block.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => m[1]));
    for (const entry of block.split('<entry>').slice(1))
      entries.push({
        category,
        cwe,
        level: Number(tag(entry, 'level')),
        method: tag(entry, 'method'),
        path: tag(entry, 'path'),
        parameter: tag(entry, 'parameter'),
        info: tag(entry, 'info'),
        curl: tag(entry, 'curl_command'),
        request: tag(entry, 'http_request'),
      });
  }
  return { entries, target: /<info name="target">([^<]*)</.exec(text)![1] };
}

const SEVERITY = ['Info', 'Low', 'Medium', 'High', 'High'];

/** The alerts a sample should import as, sorted by name and severity (as zap-expected.ts's). */
export function wapitiExpected(file: string): ExpectedAlert[] {
  const { entries, target } = wapitiEntries(file);
  const origin = new URL(target).origin;
  const alerts = new Map<string, { cwe: string; instances: Map<string, WapitiEntry> }>();
  for (const e of entries) {
    const key = `${e.category}\n${SEVERITY[e.level]}`;
    const alert = alerts.get(key) ?? { cwe: e.cwe, instances: new Map() };
    alert.instances.set(JSON.stringify([e.method, e.path, e.parameter, e.info, e.curl]), e);
    alerts.set(key, alert);
  }
  return [...alerts]
    .map(([key, { cwe, instances }]) => {
      const list = [...instances.values()];
      return {
        name: key.split('\n')[0],
        severity: key.split('\n')[1],
        cweId: cwe,
        uriCount: list.length,
        uris: list.map((e) => origin + e.path).sort(),
        messages: list.map((e) => [origin + e.path, e.request.split('\n')[0].trim(), ''].join('\n')).sort(),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.severity.localeCompare(b.severity));
}
