import { XMLValidator } from 'fast-xml-parser';
import { parseZapReport } from '../zap/index.ts';
import { ZapReportError as ReportError, type ReadLimits } from '../zap/report.ts';
import { isWapitiJson, isWapitiXmlRoot, readWapitiReport } from '../wapiti/index.ts';
import { isNucleiResult, readNucleiReport } from '../nuclei/index.ts';
import { isBurpXmlRoot, readBurpReport } from '../burp/index.ts';
import { isSarifLog, readSarifRuns, sarifDriverName } from '../sarif/index.ts';
import { isObject, jsonError, type JsonObject } from './json.ts';
import { fromZapReport, REPORT_TOOLS, type ImportedReport, type ReportTool } from './report.ts';
import { rootElementName } from './xml.ts';

// Reads a scanner's report of any tool the import knows (docs/IMPORTS.md), recognised from its content or named by
// the caller (`format`), into the alerts of one scan. The CLI parses locally with it and the service's import
// operation (POST /api/v1/app/{appId}/scan/import) parses with it too. A document that could be read as the report
// of more than one tool is refused, naming the candidates; `format` then chooses.

export { ZapReportError as ReportError, ReportTooLargeError } from '../zap/report.ts';
export { REPORT_TOOLS, importedFrom, importedScanConfig, importedScanLabels } from './report.ts';
export type { ImportedReport, ReportTool } from './report.ts';
export { BATCH_LIMITS, reportBatches, toReportedAlerts, urlCountOf, LIMITS, SEVERITIES } from '../zap/index.ts';
export type { ImportedAlert, ImportedUri, ReadLimits, ReportedAlert, Severity, SkippedItem } from '../zap/index.ts';
export { readWapitiReport } from '../wapiti/index.ts';

const TOOL_NAMES: Record<ReportTool, string> = {
  zap: 'ZAP',
  wapiti: 'Wapiti',
  nuclei: 'Nuclei',
  burp: 'Burp Suite',
  sarif: 'SARIF',
};

/** Whether `value` names a tool (`format`), in any case. */
export const isReportTool = (value: string): value is ReportTool =>
  (REPORT_TOOLS as readonly string[]).includes(value.toLowerCase());

const toText = (input: string | Buffer) =>
  (typeof input === 'string' ? input : input.toString('utf8')).replace(/^\uFEFF/, '');

/** The first line of a text that is not blank. */
const firstLine = (text: string) =>
  text
    .slice(0, 1_000_000)
    .split('\n')
    .find((line) => line.trim()) ?? '';

/** The tools whose reports the document's content matches, and the parsed JSON when it is one JSON object. */
function candidatesOf(text: string): { tools: ReportTool[]; json?: JsonObject; why: string } {
  const start = text.trimStart();
  if (start.startsWith('<')) {
    const root = rootElementName(start);
    const tools: ReportTool[] = [];
    if (root === 'OWASPZAPReport') tools.push('zap');
    if (isWapitiXmlRoot(root)) tools.push('wapiti');
    if (isBurpXmlRoot(root)) tools.push('burp');
    if (tools.length === 0) {
      const valid = XMLValidator.validate(start);
      if (valid !== true)
        throw new ReportError(`malformed XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
    }
    return { tools, why: `an XML document with root element <${root.slice(0, 64)}>` };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    // JSON Lines: several JSON values, one a line; Nuclei's when its first line is a Nuclei result.
    let first: unknown;
    try {
      first = JSON.parse(firstLine(text));
    } catch {
      throw new ReportError(`neither XML nor valid JSON: ${jsonError(error, text)}`);
    }
    if (isNucleiResult(first)) return { tools: ['nuclei'], why: 'JSON Lines of Nuclei results' };
    throw new ReportError(`neither XML nor valid JSON: ${jsonError(error, text)}`);
  }
  if (Array.isArray(document)) {
    const tools: ReportTool[] = document.length > 0 && isNucleiResult(document[0]) ? ['nuclei'] : [];
    return { tools, why: 'a JSON array' + (document.length ? ' whose first item is not a Nuclei result' : ' (empty)') };
  }
  if (!isObject(document)) return { tools: [], why: 'a JSON value that is not an object' };
  const tools: ReportTool[] = [];
  const sarif = isSarifLog(document);
  // A SARIF log of ZAP is ZAP's (its reader keeps ZAP's plugin ids and requests); of any other tool, SARIF's.
  if (Object.hasOwn(document, 'site') || (sarif && /\bZAP\b/i.test(sarifDriverName(document)))) tools.push('zap');
  else if (sarif) tools.push('sarif');
  if (isWapitiJson(document)) tools.push('wapiti');
  if (isNucleiResult(document)) tools.push('nuclei');
  const keys = Object.keys(document)
    .slice(0, 5)
    .map((k) => JSON.stringify(k.slice(0, 40)));
  return { tools, json: document, why: `a JSON object with keys ${keys.length ? keys.join(', ') : '(none)'}` };
}

function readAs(tool: ReportTool, text: string, json: JsonObject | undefined, limits: ReadLimits): ImportedReport[] {
  switch (tool) {
    case 'zap':
      return [fromZapReport(parseZapReport(text, limits))];
    case 'wapiti':
      return [readWapitiReport(json ?? text, limits)];
    case 'nuclei':
      return [readNucleiReport(text, limits)];
    case 'burp':
      return [readBurpReport(text, limits)];
    case 'sarif': {
      if (!json) throw new ReportError('not a SARIF log: a SARIF log is one JSON object');
      return readSarifRuns(json, limits);
    }
  }
}

/**
 * The report read as `format`'s tool, or as the one tool its content matches: one report per scan it holds (one,
 * except a SARIF log of several runs, each read within `limits`). Throws ReportError (naming where) for anything
 * that is not a report of a known tool, or that matches several without `format`, and ReportTooLargeError as soon as
 * the mapping passes `limits`.
 */
export function parseReports(input: string | Buffer, format?: string, limits: ReadLimits = {}): ImportedReport[] {
  const text = toText(input);
  if (format !== undefined && !isReportTool(format))
    throw new ReportError(`format ${JSON.stringify(format.slice(0, 40))} is not one of ${REPORT_TOOLS.join(', ')}`);
  const named = format?.toLowerCase() as ReportTool | undefined;
  if (!text.trim()) {
    // Nuclei writes an empty file when nothing matched; no other tool does, and an empty upload is often a mistake.
    if (named === 'nuclei') return [readNucleiReport('')];
    throw new ReportError(
      'the report is empty (Nuclei writes an empty file when nothing matched: name it with format=nuclei to import a scan without findings)',
    );
  }
  const { tools, json, why } = candidatesOf(text);
  if (named) return readAs(named, text, json, limits);
  if (tools.length === 1) return readAs(tools[0], text, json, limits);
  if (tools.length === 0)
    throw new ReportError(
      `not a report of a known tool (${REPORT_TOOLS.map((t) => TOOL_NAMES[t]).join(', ')}): ${why}`,
    );
  throw new ReportError(
    `${why} could be a report of ${tools.map((t) => TOOL_NAMES[t]).join(' or ')}: name it with format=${tools.join(' or format=')}`,
  );
}

/** The report of one scan (parseReports); a SARIF log of several runs is refused, naming the CLI. */
export function parseReport(input: string | Buffer, format?: string, limits: ReadLimits = {}): ImportedReport {
  const reports = parseReports(input, format, limits);
  if (reports.length > 1)
    throw new ReportError(
      `runs: the SARIF log has ${reports.length} runs, each a scan; this reads one scan at a time: send each run as its own log, or import it with the CLI (hawk-scanner import), which imports one scan per run`,
    );
  return reports[0];
}

/** A Wapiti report (JSON or XML text) read into the shape every import stores. */
export const parseWapitiReport = (input: string | Buffer) => parseReport(input, 'wapiti');
