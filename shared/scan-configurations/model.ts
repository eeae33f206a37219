import { LineCounter, isMap, type Document } from 'yaml';
import { DocumentRejected, documentValue, parseBoundedYaml } from '../input/documents.ts';
import { SCAN_CONFIG_LIMITS } from '../limits.ts';
import * as z from 'zod/mini';
import { configNameSchema } from '../hosted-assets/model.ts';

// Organization scan configurations' model: the request body, the size limit and the bounded YAML parse. Records, types
// and pure rules only (docs/LAYOUT.md, Layers): it imports the kernel and other resources' model.ts, never a
// repository.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

// How configuration text is parsed for organization scan configurations: the service's bounded YAML parser
// (documents.ts: size, depth, node and alias limits, linear duplicate-key check), keeping positions so that
// problems can name their line and column.

/** Largest accepted configuration text: a stackhawk.yml is a few KB; this leaves room for large include lists. */
export const MAX_CONFIGURATION_BYTES = 256 * 1024;

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

export const conf = schema(() =>
  z.string().check(
    z.minLength(1, 'must not be empty: the HawkScan YAML configuration'),
    z.refine(
      (text) => Buffer.byteLength(text, 'utf8') <= MAX_CONFIGURATION_BYTES,
      `must be at most ${MAX_CONFIGURATION_BYTES} bytes`,
    ),
  ),
);

export const configType = schema(() =>
  z.optional(z.enum(['ORG', 'APP', 'TARGET'], { error: 'must be one of ORG, APP, TARGET' })),
);

/**
 * `configuration.UpsertScanConfigurationRequest`. hawkop sends the type as `type`, the public description as
 * `configType`: both are read (`configType` wins), ORG when absent.
 */
export const upsertScanConfigurationBody = schema(() =>
  z.pipe(
    z.object({ conf, name: configNameSchema, configType, type: configType }),
    z.transform(({ conf, name, configType, type }) => ({ conf, name, configType: configType ?? type ?? 'ORG' })),
  ),
);

export type UpsertScanConfiguration = z.output<typeof upsertScanConfigurationBody>;
