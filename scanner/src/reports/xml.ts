import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SaxesParser } from 'saxes';
import { ZapReportError as ReportError } from '../zap/report.ts';

// XML of imported reports (ZAP, Wapiti, Burp): read once by a conforming streaming tokenizer (saxes) to find the
// document type declaration where XML puts it, at document level before the root element, never inside a CDATA
// section, comment or text (an HTML response's `<!DOCTYPE html>`); then validated and parsed by fast-xml-parser with
// the five XML entities and numeric references only. A document type declaration is accepted only where a tool
// writes one (Burp's export starts with an internal DTD of element and attribute declarations): it is checked,
// never fetched or expanded, and blanked out before parsing. Every entity declaration (the source of XXE and of
// billion laughs), parameter entity reference and external identifier is refused, naming its line and column.

export type XmlNode = Record<string, unknown>;

/** Line and column (1-based) of `offset` in `text`. */
export function lineColumn(text: string, offset: number): string {
  let line = 1;
  let last = -1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    last = i;
  }
  return `line ${line}, column ${offset - last}`;
}

/** The end (offset after `>`) of the markup declaration opening at `at`, quoted strings skipped; -1 when open. */
function declarationEnd(text: string, at: number): number {
  let quote = '';
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i + 1;
  }
  return -1;
}

/**
 * Where the document type declaration at `start` (`<!DOCTYPE`) ends, after checking that it is an internal subset
 * of element, attribute-list and notation declarations, comments and processing instructions only.
 */
function doctypeEnd(text: string, start: number): number {
  const refuse = (at: number, what: string): never => {
    throw new ReportError(
      `${lineColumn(text, at)}: ${what} in the document type declaration is refused (no entity is declared, fetched or expanded)`,
    );
  };
  const head = /^<!DOCTYPE\s+[^\s[>]+\s*/.exec(text.slice(start, start + 300));
  if (!head) refuse(start, 'a malformed <!DOCTYPE');
  let i = start + head![0].length;
  if (/^(SYSTEM|PUBLIC)\b/.test(text.slice(i, i + 6))) refuse(i, 'an external identifier (SYSTEM or PUBLIC)');
  if (text[i] === '>') return i + 1;
  if (text[i] !== '[') refuse(i, 'an unexpected character');
  i++;
  for (;;) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (i >= text.length) refuse(start, 'an unterminated <!DOCTYPE');
    if (text[i] === ']') {
      i++;
      while (i < text.length && /\s/.test(text[i])) i++;
      if (text[i] !== '>') refuse(i, 'an unexpected character');
      return i + 1;
    }
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end === -1) refuse(i, 'an unterminated comment');
      i = end + 3;
    } else if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end === -1) refuse(i, 'an unterminated processing instruction');
      i = end + 2;
    } else if (/^<!(ELEMENT|ATTLIST|NOTATION)\s/.test(text.slice(i, i + 11))) {
      const end = declarationEnd(text, i);
      if (end === -1) refuse(i, 'an unterminated declaration');
      if (/SYSTEM|PUBLIC|%/.test(text.slice(i, end).replace(/"[^"]*"|'[^']*'/g, '')))
        refuse(i, 'an external identifier or parameter entity reference');
      i = end;
    } else if (text.startsWith('<!ENTITY', i)) refuse(i, 'an entity declaration (<!ENTITY)');
    else if (text[i] === '%') refuse(i, 'a parameter entity reference');
    else refuse(i, 'an unexpected declaration');
  }
}

/**
 * saxes's complaints that leave its reading of the markup as it was, tolerated as fast-xml-parser tolerates them: a
 * character XML does not allow (Burp's plain exports keep a response's NUL bytes, as their own comment says) and an
 * entity XML does not define (HTML's, in ZAP's text). Any other complaint refuses the document: another parser could
 * split its markup differently, and find a declaration the tokenizer took for text.
 */
const TOLERATED = new Set(['disallowed character.', 'undefined entity.']);
const MISPLACED = 'inappropriately located doctype declaration.';
class StopReading extends Error {}

/** What a conforming XML tokenizer found: the document type declaration's extent, a misplaced one, malformed markup. */
interface Markup {
  doctype?: { start: number; end: number };
  /** Where a second declaration, or one after the root element's start, opens. */
  misplaced?: number;
  /** The first malformed markup, as a refusal. */
  malformed?: string;
}

/** The offset after the prolog's XML declaration, processing instructions, comments and white space. */
function afterMisc(text: string): number {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
    const close = text.startsWith('<?', i) ? '?>' : text.startsWith('<!--', i) ? '-->' : '';
    if (!close) return i;
    const end = text.indexOf(close, i + 2);
    if (end === -1) return text.length;
    i = end + close.length;
  }
}

/**
 * The markup of the whole text read by saxes, a streaming XML tokenizer (linear, no backtracking): a `<!DOCTYPE`
 * inside a CDATA section, a comment, a processing instruction or escaped text is content, never a declaration.
 */
function readMarkup(text: string): Markup {
  const parser = new SaxesParser({ position: true });
  const found: Markup = {};
  parser.on('doctype', () => {
    // Only one declaration reaches here: saxes complains of any other before reading it. Where it starts: after the
    // prolog's declarations and comments, which saxes has just read without complaint.
    found.doctype = { start: afterMisc(text), end: parser.position };
  });
  parser.on('error', (error) => {
    const complaint = error.message.replace(/^\d+:\d+: /, '');
    if (TOLERATED.has(complaint)) return;
    if (complaint === MISPLACED) found.misplaced = parser.position - '<!DOCTYPE'.length;
    else found.malformed = `malformed XML at ${lineColumn(text, parser.position - 1)}: ${complaint.slice(0, 200)}`;
    throw new StopReading();
  });
  try {
    parser.write(text).close();
  } catch (error) {
    if (!(error instanceof StopReading)) throw error;
  }
  return found;
}

/**
 * The text with its document type declaration (when allowed and valid) replaced by spaces, lines kept, once it is
 * well-formed XML; otherwise a ReportError naming what is wrong and where.
 */
export function wellFormedXml(text: string, tool: string, allowDoctype = false): string {
  // saxes reads a lone high surrogate and the unit after it as one character, `]` or `<` included (text decoded from
  // bytes has none; a string given to the reader may).
  const lone = text.search(/\p{Cs}/u);
  if (lone !== -1) throw new ReportError(`${lineColumn(text, lone)}: a lone surrogate, which is no character`);
  const { doctype, misplaced, malformed } = readMarkup(text);
  const declared = doctype?.start ?? misplaced;
  if (declared !== undefined && !allowDoctype)
    throw new ReportError(
      `${lineColumn(text, declared)}: XML with a DOCTYPE declaration is refused (entity declarations are not expanded); ${tool} reports have none`,
    );
  if (misplaced !== undefined)
    throw new ReportError(
      `${lineColumn(text, misplaced)}: ${doctype ? 'a second <!DOCTYPE' : "a <!DOCTYPE after the root element's start"}`,
    );
  let body = text;
  if (doctype) {
    if (!text.startsWith('<!DOCTYPE', doctype.start) || doctypeEnd(text, doctype.start) !== doctype.end)
      throw new ReportError(`${lineColumn(text, doctype.start)}: a malformed <!DOCTYPE`);
    body =
      text.slice(0, doctype.start) +
      text.slice(doctype.start, doctype.end).replace(/[^\n]/g, ' ') +
      text.slice(doctype.end);
  }
  // fast-xml-parser's own check first, for its messages; then anything saxes found malformed that it let through.
  const valid = XMLValidator.validate(body);
  if (valid !== true) throw new ReportError(malformedXml(valid.err));
  if (malformed) throw new ReportError(malformed);
  return body;
}

const MAX_PROBLEM_CHARACTERS = 200;

/**
 * fast-xml-parser's validation error as one short line: its own message for unclosed elements lists every open
 * element (megabytes for a deep or long document), and others quote names of any length.
 */
function malformedXml(err: { msg: string; line: number; col: number }): string {
  const problem = err.msg.startsWith("Invalid '[") ? 'elements left open at the end of the document' : err.msg;
  const short =
    problem.length > MAX_PROBLEM_CHARACTERS ? `${problem.slice(0, MAX_PROBLEM_CHARACTERS)}... (cut)` : problem;
  return `malformed XML at line ${err.line}, column ${err.col}: ${short}`;
}

export interface XmlOptions {
  /** The tool named in refusals. */
  tool: string;
  /** Paths (`root.child.grandchild`) always read as lists. */
  arrays: Set<string>;
  /** Whether an internal DTD without entities is accepted (Burp's). */
  allowDoctype?: boolean;
}

/** The document's root element: its name and content (attributes as `@name`, text as `#text`). */
export function readXml(text: string, options: XmlOptions): { name: string; root: XmlNode } {
  const body = wellFormedXml(text, options.tool, options.allowDoctype);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    processEntities: true,
    htmlEntities: false,
    isArray: (_name, jPath) => options.arrays.has(String(jPath)),
    maxNestedTags: 20,
  });
  let document: XmlNode;
  try {
    document = parser.parse(body) as XmlNode;
  } catch (error) {
    throw new ReportError(`malformed XML: ${(error as Error).message}`);
  }
  const name = Object.keys(document).find((key) => !key.startsWith('?') && !key.startsWith('#')) ?? '';
  const root = document[name];
  return { name, root: root && typeof root === 'object' ? (root as XmlNode) : {} };
}

/** An element's text ('' when absent or empty; the first when repeated). */
export function text(node: XmlNode, name: string): string {
  let value = Object.hasOwn(node, name) ? node[name] : undefined;
  if (Array.isArray(value)) value = value[0];
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as XmlNode)['#text'] === 'string')
    return (value as XmlNode)['#text'] as string;
  return '';
}

/** An attribute's value ('' when absent). */
export const attribute = (node: XmlNode, name: string) => {
  const value = Object.hasOwn(node, `@${name}`) ? node[`@${name}`] : undefined;
  return typeof value === 'string' ? value : '';
};

/** The element objects at `path` below `node` (a self-closing or text-only element counts as none). */
export function children(node: unknown, path: string[]): XmlNode[] {
  let value: unknown = node;
  for (const name of path)
    value = value && typeof value === 'object' && Object.hasOwn(value, name) ? (value as XmlNode)[name] : undefined;
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.filter((v): v is XmlNode => !!v && typeof v === 'object');
}

/** The name of the first element of an XML text (after declarations, comments and a document type), '' if none. */
export function rootElementName(text: string): string {
  let i = 0;
  const limit = Math.min(text.length, 1_000_000);
  while (i < limit) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') i++;
    else if (text.startsWith('<?', i)) i = text.indexOf('?>', i) === -1 ? limit : text.indexOf('?>', i) + 2;
    else if (text.startsWith('<!--', i)) i = text.indexOf('-->', i) === -1 ? limit : text.indexOf('-->', i) + 3;
    else if (text.startsWith('<!DOCTYPE', i)) {
      const subset = text.indexOf('[', i);
      const close = text.indexOf('>', i);
      if (close === -1) return '';
      i = subset !== -1 && subset < close ? text.indexOf(']', subset) : close;
      i = i === -1 ? limit : text.indexOf('>', i) + 1 || limit;
    } else return /^<([A-Za-z_][\w.:-]*)/.exec(text.slice(i, i + 256))?.[1] ?? '';
  }
  return '';
}
