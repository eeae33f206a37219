import { LineCounter, isMap, parseDocument, type Document } from 'yaml';

// How configuration text is parsed for organization scan configurations: one YAML document, duplicate keys
// refused, aliases bounded. Positions are kept so problems can name their line and column.

export interface ParsedConfiguration {
  document: Document.Parsed;
  lineCounter: LineCounter;
  /** The first syntax problem, with its position. */
  syntaxError?: { message: string; line: number; col: number };
  /** The document as plain data, when it is a well-formed YAML mapping. */
  value?: Record<string, unknown>;
}

const MAX_ALIASES = 100;

export function parseConfiguration(text: string): ParsedConfiguration {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const [error] = document.errors;
  if (error) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    // Only the first line: the rest quotes the source, which may hold a secret.
    return { document, lineCounter, syntaxError: { message: error.message.split('\n')[0], line, col } };
  }
  if (!isMap(document.contents)) return { document, lineCounter };
  try {
    return { document, lineCounter, value: document.toJS({ maxAliasCount: MAX_ALIASES }) as Record<string, unknown> };
  } catch (error) {
    return { document, lineCounter, syntaxError: { message: (error as Error).message.split('\n')[0], line: 1, col: 1 } };
  }
}
