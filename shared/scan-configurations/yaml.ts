import { LineCounter, isMap, type Document } from 'yaml';
import { DocumentRejected, documentValue, parseBoundedYaml } from '../input/documents.ts';
import { SCAN_CONFIG_LIMITS } from '../limits.ts';
import { MAX_CONFIGURATION_BYTES } from './inputs.ts';

// How configuration text is parsed for organization scan configurations: the service's bounded YAML parser
// (documents.ts: size, depth, node and alias limits, linear duplicate-key check), keeping positions so that
// problems can name their line and column.

export interface ParsedConfiguration {
  document?: Document.Parsed;
  lineCounter: LineCounter;
  /** The first syntax problem or limit reached, with its position. */
  syntaxError?: { message: string; line: number; col: number };
  /** The document as plain data, when it is a well-formed YAML mapping. */
  value?: Record<string, unknown>;
}

const LIMITS = { ...SCAN_CONFIG_LIMITS, maxBytes: MAX_CONFIGURATION_BYTES };

export function parseConfiguration(text: string): ParsedConfiguration {
  const lineCounter = new LineCounter();
  const rejected = (error: DocumentRejected) => {
    const { line, col } = error.offset === undefined ? { line: 1, col: 1 } : lineCounter.linePos(error.offset);
    return { lineCounter, syntaxError: { message: error.message, line, col } };
  };
  let document: Document.Parsed;
  try {
    document = parseBoundedYaml(text, LIMITS, lineCounter);
  } catch (error) {
    if (error instanceof DocumentRejected) return rejected(error);
    throw error;
  }
  const [syntax] = document.errors;
  if (syntax) {
    const { line, col } = lineCounter.linePos(syntax.pos[0]);
    // Only the first line: the rest quotes the source, which may hold a secret.
    return { document, lineCounter, syntaxError: { message: syntax.message.split('\n')[0], line, col } };
  }
  if (!isMap(document.contents)) return { document, lineCounter };
  try {
    return { document, lineCounter, value: documentValue(document, LIMITS) as Record<string, unknown> };
  } catch (error) {
    if (error instanceof DocumentRejected) return { document, ...rejected(error) };
    throw error;
  }
}
