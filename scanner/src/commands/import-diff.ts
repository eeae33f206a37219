// What an import changed (getScanDiff against the previous completed scan of the scan's tool stream;
// docs/DATA-MODEL.md, Scan diffs): the `--fail-on new:<severity>` gate and the `--summary markdown` summary of
// `hawk-scanner import` (docs/IMPORTS.md, What an import changed).
import type { Service } from '../net/service.ts';
import { serviceCall, type Answer } from '../api/call.ts';
import type { Severity } from '../reports/index.ts';

export type ScanDiff = Answer<'GET', '/api/v1/scan/{scanId}/diff'>;
type DiffEntry = NonNullable<ScanDiff['new']>[number];

const ORDER: Severity[] = ['High', 'Medium', 'Low', 'Info'];
/** Entries listed per set in the summary (the counts stay exact). */
const LISTED = 50;

/**
 * The scan's diff against the previous completed scan of its stream: its pages (up to 20,000 entries or 4 MiB each,
 * through new, regressed, fixed, then unchanged) until the first that reaches the unchanged ones, which the summary
 * only counts.
 */
export async function diffOfImport(api: Service, scanId: string): Promise<ScanDiff> {
  const page = (pageToken: string) =>
    serviceCall(api, 'GET', '/api/v1/scan/{scanId}/diff', { path: { scanId }, query: { pageToken } });
  const diff = await page('0');
  for (let last = diff; last.nextPageToken && !last.unchanged?.length;) {
    last = await page(last.nextPageToken);
    for (const set of ['new', 'regressed', 'fixed', 'unchanged'] as const)
      diff[set] = [...(diff[set] ?? []), ...(last[set] ?? [])];
  }
  return diff;
}

/** A set's size: its total, of which the pages read may list part (the unchanged ones). */
const total = (diff: ScanDiff, set: 'new' | 'regressed' | 'fixed' | 'unchanged') =>
  diff.totals?.[set] ?? diff[set]?.length ?? 0;

/** New and regressed findings of `threshold` or higher: what the `new:<severity>` gate fails on. */
export function newAtOrAbove(diff: ScanDiff, threshold: Severity): DiffEntry[] {
  const rank = (s: string | undefined) => ORDER.indexOf(s as Severity);
  return [...(diff.new ?? []), ...(diff.regressed ?? [])].filter(
    (f) => rank(f.severity) >= 0 && rank(f.severity) <= ORDER.indexOf(threshold),
  );
}

/** Markdown table cells: no pipes or line breaks from finding names or URIs. */
const cell = (text: string | undefined) => (text ?? '').replace(/[|\\]/g, (c) => `\\${c}`).replace(/\s+/g, ' ');

function section(title: string, entries: DiffEntry[]): string[] {
  if (!entries.length) return [];
  const lines = [
    '',
    `### ${title} (${entries.length})`,
    '',
    '| Severity | Finding | Method | URI | Parameter |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const f of entries.slice(0, LISTED))
    lines.push(
      `| ${cell(f.severity)} | ${cell(f.name)} (${cell(f.pluginId)}) | ${cell(f.method)} | ${cell(f.uri)} | ${cell(f.param)} |`,
    );
  if (entries.length > LISTED) lines.push('', `... and ${entries.length - LISTED} more: see the scan.`);
  return lines;
}

/** The summary for a CI job's step summary or a pull-request comment: counts, then the new, regressed and fixed lists. */
export function markdownSummary(diff: ScanDiff, heading: string, scanLink: string, againstLink: string): string {
  const [added, regressed, fixed] = [diff.new ?? [], diff.regressed ?? [], diff.fixed ?? []];
  const against = diff.againstScanId
    ? `against [the previous scan](${againstLink}) of its tool stream`
    : 'the first scan of its tool stream: every finding is new';
  return [
    `## ${cell(heading)}`,
    '',
    `[Scan ${diff.scanId}](${scanLink}), ${against}: **${added.length} new**, **${regressed.length} regressed**, ` +
      `**${fixed.length} fixed**, ${total(diff, 'unchanged')} unchanged.`,
    ...section('New', added),
    ...section('Regressed', regressed),
    ...section('Fixed', fixed),
    '',
  ].join('\n');
}
