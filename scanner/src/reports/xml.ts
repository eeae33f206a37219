import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ZapReportError as ReportError } from '../zap/report.ts';

// XML of imported reports (Wapiti, Burp): validated, then parsed with the five XML entities and numeric
// references only. A document type declaration is accepted only where a tool writes one (Burp's export starts
// with an internal DTD of element and attribute declarations): it is checked, never fetched or expanded, and
// blanked out before parsing. Every entity declaration (the source of XXE and of billion laughs), parameter entity
// reference and external identifier is refused, naming its line and column.

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

/** The text with its document type declaration (when allowed and valid) replaced by spaces, lines kept. */
function withoutDoctype(text: string, allowDoctype: boolean, tool: string): string {
  const at = text.search(/<!DOCTYPE/i);
  if (at === -1) return text;
  if (!allowDoctype)
    throw new ReportError(
      `${lineColumn(text, at)}: XML with a document type declaration is refused (entity declarations are not expanded); ${tool} reports have none`,
    );
  // Only in the prolog, before the root element: anywhere else the validator names the line.
  const before = text.slice(0, at).replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, '');
  if (before.trim()) throw new ReportError(`${lineColumn(text, at)}: a <!DOCTYPE after the root element's start`);
  const end = doctypeEnd(text, at);
  if (/<!DOCTYPE/i.test(text.slice(end)))
    throw new ReportError(`${lineColumn(text, end + text.slice(end).search(/<!DOCTYPE/i))}: a second <!DOCTYPE`);
  return text.slice(0, at) + text.slice(at, end).replace(/[^\n]/g, ' ') + text.slice(end);
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
  const body = withoutDoctype(text, !!options.allowDoctype, options.tool);
  const valid = XMLValidator.validate(body);
  if (valid !== true)
    throw new ReportError(`malformed XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
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
