import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// What each Nuclei, Burp Suite and SARIF sample should import as, counted straight from the file without the
// importers: JSON with JSON.parse (JSON Lines a line at a time), Burp's XML by cutting the text at its issue tags.
// The rules applied are the documented ones (docs/IMPORTS.md): severities per the mapping table, identical findings
// once, suppressed SARIF results left out.

const dir = (tool: string) => fileURLToPath(new URL(`./fixtures/${tool}/`, import.meta.url));
export const formatsFixture = (tool: string, name: string) => readFileSync(dir(tool) + name, 'utf8');
export const samplesOf = (tool: string) => readdirSync(dir(tool)).filter((f) => !f.endsWith('.md'));
export const fixturePath = (tool: string, name: string) => dir(tool) + name;

/** Findings by severity, and alerts (distinct ids as the tool writes them). */
export interface Expected {
  findings: number;
  bySeverity: Record<string, number>;
  alerts: number;
}

const add = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);
const NUCLEI: Record<string, string> = { critical: 'High', high: 'High', medium: 'Medium', low: 'Low', info: 'Info' };

export function nucleiExpected(file: string): Expected {
  const text = formatsFixture('nuclei', file);
  const results = text.trim().startsWith('[')
    ? (JSON.parse(text) as Record<string, any>[])
    : text
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l));
  const seen = new Set<string>();
  const alerts = new Set<string>();
  const bySeverity: Record<string, number> = {};
  for (const r of results) {
    const template = r['template-id'] ?? r.templateID;
    const matcher = r['matcher-name'] ?? r.matcher_name ?? '';
    const place = r['matched-at'] ?? r.matched ?? r.url ?? r.host ?? r.ip ?? '';
    const key = JSON.stringify([template, matcher, place, r['extracted-results'] ?? r.extracted_results ?? null]);
    if (seen.has(key)) continue;
    seen.add(key);
    alerts.add(`${template}\n${matcher}`);
    add(bySeverity, NUCLEI[r.info.severity]);
  }
  return { findings: seen.size, bySeverity, alerts: alerts.size };
}

const BURP: Record<string, string> = { High: 'High', Medium: 'Medium', Low: 'Low', Information: 'Info' };
const cdata = (s: string) => s.replace(/^<!\[CDATA\[([\s\S]*)\]\]>$/, '$1').trim();
const tag = (block: string, name: string) =>
  cdata(new RegExp(`<${name}[^>]*>([\\s\\S]*?)</${name}>`).exec(block)?.[1] ?? '');

export function burpExpected(file: string): Expected {
  const issues = formatsFixture('burp', file).split('<issue>').slice(1);
  const seen = new Set<string>();
  const alerts = new Set<string>();
  const bySeverity: Record<string, number> = {};
  for (const issue of issues) {
    const key = JSON.stringify(['type', 'host', 'path', 'location'].map((t) => tag(issue, t)));
    if (seen.has(key)) continue;
    seen.add(key);
    alerts.add(`${tag(issue, 'type')}\n${tag(issue, 'name')}\n${tag(issue, 'severity')}`);
    add(bySeverity, BURP[tag(issue, 'severity')]);
  }
  return { findings: seen.size, bySeverity, alerts: alerts.size };
}

const SARIF: Record<string, string> = { error: 'High', warning: 'Medium', note: 'Low', none: 'Info' };

/** Per run: results not suppressed, with the effective level (result, rule by index or id, else warning). */
export function sarifExpected(file: string): (Expected & { suppressed: number })[] {
  const log = JSON.parse(formatsFixture('sarif', file));
  return log.runs.map((run: any) => {
    const rules = run.tool.driver.rules ?? [];
    const bySeverity: Record<string, number> = {};
    const alerts = new Set<string>();
    let findings = 0;
    let suppressed = 0;
    for (const result of run.results ?? []) {
      if ((result.suppressions ?? []).some((s: { status?: string }) => s.status !== 'rejected')) {
        suppressed++;
        continue;
      }
      const rule = rules[result.ruleIndex] ?? rules.find((r: { id: string }) => r.id === result.ruleId);
      const level = result.level ?? rule?.defaultConfiguration?.level ?? 'warning';
      add(bySeverity, SARIF[level]);
      alerts.add(`${result.ruleId}\n${level}`);
      findings++;
    }
    return { findings, bySeverity, alerts: alerts.size, suppressed };
  });
}
