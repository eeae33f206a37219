import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// What each ZAP sample should import as, counted straight from the file without the importer's parser: XML by
// cutting the text at its alertitem/instance tags, JSON and SARIF with JSON.parse. The rules applied are the
// documented ones (scanner/src/zap/report.ts): alerts are (alertRef or pluginid, name, risk); identical instances
// count once; alerts without instances are left out.

export const FIXTURES = fileURLToPath(new URL('./fixtures/zap/', import.meta.url));
export const fixture = (name: string) => readFileSync(FIXTURES + name);
/** The samples that are ZAP reports (the malformed one aside). */
export const SAMPLES = readdirSync(FIXTURES).filter((f) => /\.(xml|json)$/.test(f) && !f.includes('malformed'));

export interface ExpectedAlert {
  name: string;
  severity: string;
  cweId: string;
  uriCount: number;
  /** Instance URIs, sorted (entity-decoded for XML). */
  uris: string[];
  /**
   * Per instance, sorted: `uri`, the first line of its request header and of its response header ('' when the
   * report has no message), one per line.
   */
  messages: string[];
}

const SEVERITY: Record<string, string> = { '0': 'Info', '1': 'Low', '2': 'Medium', '3': 'High' };
const SARIF_RISK: Record<string, string> = { error: '3', warning: '2', note: '1', none: '0' };
const noneId = (id: string | undefined) => (!id || id === '-1' || id === '0' ? '' : id);

const decode = (s: string) =>
  s
    .replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#([0-9]+);/g, (_, d) => String.fromCodePoint(Number(d)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
const tag = (block: string, name: string) =>
  decode(block.match(new RegExp(`<${name}>([^<]*)</${name}>`))?.[1] ?? '').trim();
const blocks = (text: string, name: string) =>
  [...text.matchAll(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, 'g'))].map((m) => m[1]);

interface Counted {
  key: string;
  name: string;
  riskcode: string;
  cweId: string;
  instances: { uri: string; identity: string; message: string }[];
}

const firstLine = (text: string | undefined) => (text ?? '').trim().split(/\r?\n/)[0].trim();
const messageOf = (uri: string, request: string | undefined, response: string | undefined) =>
  [uri, firstLine(request), firstLine(response)].join('\n');

function fromXml(text: string): Counted[] {
  // Only the root's direct sites: cut the report at its top-level <site> elements.
  return blocks(text, 'alertitem').map((item) => ({
    key: tag(item, 'alertRef') || tag(item, 'pluginid'),
    name: tag(item, 'name') || tag(item, 'alert'),
    riskcode: tag(item, 'riskcode'),
    cweId: tag(item, 'cweid'),
    instances: blocks(item, 'instance').map((i) => ({
      uri: tag(i, 'uri'),
      identity: ['method', 'uri', 'param', 'attack', 'evidence', 'otherinfo'].map((f) => tag(i, f)).join('\n'),
      message: messageOf(tag(i, 'uri'), tag(i, 'requestheader'), tag(i, 'responseheader')),
    })),
  }));
}

type J = Record<string, any>;
function fromJson(report: J): Counted[] {
  if (report.runs) {
    const rules = new Map<string, J>(report.runs[0].tool.driver.rules.map((r: J) => [r.id, r]));
    return report.runs[0].results.map((r: J) => {
      const rule = rules.get(r.ruleId)!;
      return {
        key: r.ruleId,
        name: rule.name,
        riskcode: SARIF_RISK[r.level],
        cweId: rule.relationships?.find((x: J) => x.target.toolComponent.name === 'CWE')?.target.id ?? '',
        instances: r.locations.map((l: J) => ({
          uri: l.physicalLocation.artifactLocation.uri,
          identity: JSON.stringify([
            r.webRequest.method,
            l.physicalLocation.artifactLocation.uri,
            l.properties?.attack,
            l.physicalLocation.region?.snippet?.text,
          ]),
          message: messageOf(
            l.physicalLocation.artifactLocation.uri,
            r.webRequest ? `${r.webRequest.method} ${r.webRequest.target} HTTP/${r.webRequest.version ?? '1.1'}` : '',
            r.webResponse && !r.webResponse.noResponseReceived
              ? `HTTP/${r.webResponse.version ?? '1.1'} ${r.webResponse.statusCode} ${r.webResponse.reasonPhrase ?? ''}`
              : '',
          ),
        })),
      };
    });
  }
  return (report.site as J[]).flatMap((site) =>
    (site.alerts as J[]).map((a) => ({
      key: a.alertRef || a.pluginid,
      name: a.name || a.alert,
      riskcode: a.riskcode,
      cweId: a.cweid ?? '',
      instances: (a.instances as J[]).map((i) => ({
        uri: i.uri,
        identity: JSON.stringify(
          ['method', 'uri', 'param', 'attack', 'evidence', 'otherinfo'].map((f) => (i[f] ?? '').trim()),
        ),
        message: messageOf(i.uri, i['request-header'], i['response-header']),
      })),
    })),
  );
}

/** The alerts a sample should import as, sorted by name then severity. */
export function expectedAlerts(file: string): ExpectedAlert[] {
  const text = fixture(file).toString('utf8');
  const counted = text.trimStart().startsWith('<') ? fromXml(text) : fromJson(JSON.parse(text));
  const merged = new Map<string, Counted & { seen: Map<string, { uri: string; message: string }> }>();
  for (const alert of counted) {
    if (alert.instances.length === 0) continue;
    const id = `${alert.key}\n${alert.name}\n${alert.riskcode}`;
    const into = merged.get(id) ?? { ...alert, seen: new Map() };
    // The first of identical instances is the one kept.
    for (const instance of alert.instances)
      if (!into.seen.has(instance.identity)) into.seen.set(instance.identity, instance);
    merged.set(id, into);
  }
  const seen = (a: { seen: Map<string, { uri: string; message: string }> }) => [...a.seen.values()];
  return [...merged.values()]
    .map((a) => ({
      name: a.name,
      severity: SEVERITY[a.riskcode],
      cweId: noneId(a.cweId),
      uriCount: a.seen.size,
      uris: seen(a)
        .map((i) => i.uri)
        .sort(),
      messages: seen(a)
        .map((i) => i.message)
        .sort(),
    }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.severity.localeCompare(b.severity));
}
