import { Lexer, isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type LineCounter } from 'yaml';

// YAML (and JSON, which YAML reads) documents from clients, parsed in bounded time and memory: a streaming pre-scan
// of the tokens refuses a document that is too big, too deep or has too many aliases before any tree is built; the
// parse itself skips yaml's duplicate-key check (quadratic in a mapping's size) for a linear one here; converting
// to plain values stops at yaml's alias expansion limit. Used by scan configurations and API descriptions.

export interface DocumentLimits {
  maxBytes: number;
  maxDepth: number;
  maxNodes: number;
  maxAliases: number;
}

/** A document refused for what it is (not its syntax): 413 for size, 400 otherwise; `offset` locates it. */
export class DocumentRejected extends Error {
  constructor(
    readonly statusCode: 400 | 413,
    message: string,
    readonly offset?: number,
  ) {
    super(message);
    this.name = 'DocumentRejected';
  }
}

const FLOW_OPEN = new Set(['[', '{']);
const FLOW_CLOSE = new Set([']', '}']);
const SCALAR = '\x1f'; // the lexer's marker before a plain or block scalar's source

/**
 * Refuses, from the lexer's token stream (linear time, constant memory), a document over the limits. Depth is
 * over-estimated (indentation columns + block indicators on the line + open flow brackets), so the estimate is
 * held to 4 x maxDepth here and the exact depth is checked on the parsed tree.
 */
export function prescanDocument(text: string, limits: DocumentLimits): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxBytes)
    throw new DocumentRejected(413, `the document is ${bytes} bytes; at most ${limits.maxBytes} are accepted`);
  let offset = 0;
  let flowDepth = 0;
  let lineStart = true;
  let indent = 0;
  let indicators = 0;
  let nodes = 0;
  let aliases = 0;
  let afterScalarMarker = false;
  for (const token of new Lexer().lex(text)) {
    const at = offset;
    offset += token.length;
    if (afterScalarMarker) {
      afterScalarMarker = false;
    } else if (token === SCALAR) {
      nodes++;
      afterScalarMarker = true;
    } else if (FLOW_OPEN.has(token)) {
      nodes++;
      flowDepth++;
    } else if (FLOW_CLOSE.has(token)) {
      flowDepth = Math.max(0, flowDepth - 1);
    } else if (token === '-' || token === '?') {
      nodes++;
      indicators++;
    } else if (token[0] === '"' || token[0] === "'") {
      nodes++;
    } else if (token[0] === '*') {
      if (++aliases > limits.maxAliases) throw new DocumentRejected(400, `more than ${limits.maxAliases} aliases`, at);
    } else if (lineStart && /^[ \t]+$/.test(token)) {
      indent = token.length;
    }
    if (nodes > limits.maxNodes) throw new DocumentRejected(413, `more than ${limits.maxNodes} values (nodes)`, at);
    if (indent + indicators + flowDepth > 4 * limits.maxDepth || flowDepth > limits.maxDepth) {
      throw new DocumentRejected(400, `nested deeper than ${limits.maxDepth} levels`, at);
    }
    lineStart = token.endsWith('\n');
    if (lineStart) indent = indicators = 0;
  }
}

/**
 * Checks the parsed tree (already bounded by the pre-scan): exact nesting depth, and duplicate keys of every
 * mapping in one pass with a set of its scalar keys.
 */
function checkTree(document: Document, limits: DocumentLimits): void {
  const visit = (node: unknown, depth: number): void => {
    if (isMap(node) || isSeq(node)) {
      if (depth > limits.maxDepth)
        throw new DocumentRejected(400, `nested deeper than ${limits.maxDepth} levels`, node.range?.[0]);
    }
    if (isMap(node)) {
      const keys = new Set<string>();
      for (const pair of node.items) {
        if (isScalar(pair.key)) {
          const key = `${typeof pair.key.value}:${String(pair.key.value)}`;
          if (keys.has(key))
            throw new DocumentRejected(
              400,
              `duplicate key ${JSON.stringify(String(pair.key.value))} (keys of a mapping must be unique)`,
              pair.key.range?.[0],
            );
          keys.add(key);
        } else if (!isAlias(pair.key)) {
          visit(pair.key, depth + 1);
        }
        visit(pair.value, depth + 1);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) visit(item, depth + 1);
    }
  };
  visit(document.contents, 1);
}

/**
 * Parses a client's YAML document within `limits`. Syntax errors are left in `document.errors` for the caller to
 * report; limits and duplicate keys throw DocumentRejected.
 */
export function parseBoundedYaml(text: string, limits: DocumentLimits, lineCounter?: LineCounter): Document.Parsed {
  prescanDocument(text, limits);
  const document = parseDocument(text, { uniqueKeys: false, prettyErrors: false, lineCounter });
  if (document.errors.length === 0) checkTree(document, limits);
  return document;
}

/** The document's plain value; aliases that would expand beyond yaml's maxAliasCount are refused. */
export function documentValue(document: Document, limits: DocumentLimits): unknown {
  try {
    return document.toJS({ maxAliasCount: limits.maxAliases });
  } catch (error) {
    if (error instanceof ReferenceError) throw new DocumentRejected(400, `aliases expand too much: ${error.message}`);
    throw error;
  }
}

/** The 1-based line of a character offset of the text. */
export function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
