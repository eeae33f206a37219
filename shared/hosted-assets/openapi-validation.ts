import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { HttpError, badRequest } from '../errors.ts';
import {
  DocumentRejected,
  documentValue,
  lineOfOffset,
  parseBoundedYaml,
  prescanDocument,
} from '../input/documents.ts';
import { DESCRIPTION_LIMITS, DESCRIPTION_VALIDATION } from '../limits.ts';
import { descriptionRoutes, type DescriptionRoutes } from './description-routes.ts';

// Validation of an uploaded API description (docs/HOSTED-ASSETS.md, Uploading a description), before anything is
// stored: YAML or JSON syntax, the upload's own rules (OpenAPI 3.0 or 3.1; `openapi`, `info` and `paths` present), then
// the structural validation of @readme/openapi-parser (the OpenAPI JSON Schemas plus its semantic rules). Every failure
// is a 400 whose message says what is wrong and where: a JSON pointer and, when it can be traced, the line.
// It runs in a worker thread with a hard time limit and its own heap limit: the input limits keep common
// descriptions fast, but validation's cost depends on the document's shape (thousands of parameters of one
// operation, thousands of schema errors), and a synchronous validator cannot otherwise be stopped.

/** A description that passed validation: the exact text to store and what was learned reading it. */
export interface ValidDescription {
  text: string;
  format: 'json' | 'yaml';
  openapiVersion: string;
  /** Its paths and servers' paths, for issue paths (description-routes.ts). */
  routes: DescriptionRoutes;
}

const OPENAPI_3_0_OR_3_1 = /^3\.[01]\.\d+(-.+)?$/;
/** Nodes a description may have once its internal `$ref`s are expanded: bounds validation time and memory. */
const MAX_EXPANDED_NODES = DESCRIPTION_LIMITS.maxExpandedNodes;
const MAX_REPORTED_ERRORS = 10;

const invalid = (details: string) => badRequest(`Invalid OpenAPI description: ${details}`);

/**
 * The body of an upload as description text. A JSON body may also be a JSON string holding the description,
 * as the public OpenAPI declares the body (`type: string`).
 */
export function descriptionText(body: Buffer, contentTypeHeader: string | undefined): string {
  const text = body.toString('utf8');
  if (contentTypeHeader?.split(';')[0].trim().toLowerCase() === 'application/json') {
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === 'string') return value;
    } catch {
      // Not JSON at all: reported by the syntax check with its position.
    }
  }
  return text;
}

/**
 * The validator (@readme/openapi-parser with ajv and the OpenAPI JSON Schemas: most of this function's bundle),
 * loaded in the worker when it validates: the request's thread, which loads this module too, never evaluates it.
 */
const openapiParser = () => import('@readme/openapi-parser');

/** Marks the worker threads this module starts; they load this same module (or the Lambda bundle holding it). */
const WORKER_KIND = 'hawk-api:validate-description';

type WorkerAnswer = { valid: ValidDescription } | { refused: { statusCode: number; message: string } };

/** Workers that answered and wait for the next description (a worker is reused: starting one loads the validator). */
const idleWorkers: Worker[] = [];

function startWorker(maxHeapMb: number): Worker {
  const worker = new Worker(workerEntry(), {
    workerData: { kind: WORKER_KIND },
    resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
    stdout: false,
    stderr: false,
  });
  worker.once('exit', () => {
    const idle = idleWorkers.indexOf(worker);
    if (idle >= 0) idleWorkers.splice(idle, 1);
  });
  return worker;
}

/**
 * Validates a description in a worker thread: 413 when it needs more than the time or memory limit
 * (DESCRIPTION_VALIDATION), after which the worker is stopped, whatever it was doing. A worker that answered
 * is kept for the next upload (unreferenced, so it never keeps a process alive).
 */
export function validateDescription(
  text: string,
  limits: { timeoutMs: number; maxHeapMb: number } = DESCRIPTION_VALIDATION,
): Promise<ValidDescription> {
  const tooCostly = (what: string) =>
    new HttpError(
      413,
      `Invalid OpenAPI description: validating it needs more than ${what}; split it or reduce its parameters, schemas or errors`,
    );
  const reusable = limits.maxHeapMb === DESCRIPTION_VALIDATION.maxHeapMb;
  const worker = (reusable && idleWorkers.pop()) || startWorker(limits.maxHeapMb);
  worker.ref();
  return new Promise((resolve, reject) => {
    const settle = (outcome: () => void, keep: boolean) => {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (keep && reusable) {
        worker.unref();
        idleWorkers.push(worker);
      } else {
        void worker.terminate();
      }
      outcome();
    };
    const onMessage = (answer: WorkerAnswer) =>
      settle(
        () =>
          'valid' in answer
            ? resolve(answer.valid)
            : reject(new HttpError(answer.refused.statusCode, answer.refused.message)),
        true,
      );
    const onError = (error: Error & { code?: string }) =>
      settle(
        () => reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? tooCostly(`${limits.maxHeapMb} MB of memory`) : error),
        false,
      );
    const onExit = (code: number) =>
      settle(() => reject(new Error(`description validation worker exited with ${code} before answering`)), false);
    const timer = setTimeout(
      () => settle(() => reject(tooCostly(`${limits.timeoutMs / 1000} s`)), false),
      limits.timeoutMs,
    );
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage(text);
  });
}

/**
 * This module itself (in the Lambda bundle: the bundle). Under tsx (npm start, the tests) it is TypeScript, and
 * a worker does not inherit tsx's loader: a small entry registers it first.
 */
function workerEntry(): URL {
  const self = new URL(import.meta.url);
  if (!self.pathname.endsWith('.ts')) return self;
  // tsx's ESM API (its `import` export: require.resolve would give the CommonJS one).
  const tsxPackage = createRequire(self).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(tsxPackage, 'utf8')) as {
    exports: Record<string, { import: { default: string } }>;
  };
  const tsx = pathToFileURL(join(dirname(tsxPackage), exports['./esm/api'].import.default)).href;
  return new URL(
    `data:text/javascript,${encodeURIComponent(`import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(self.href)});`)}`,
  );
}

async function validateHere(text: string): Promise<ValidDescription> {
  if (text.trim() === '') throw invalid('the body is empty');
  const lineCounter = new LineCounter();
  let source: Document.Parsed | undefined;
  let document: unknown;
  let format: ValidDescription['format'] = 'yaml';
  try {
    // Size, depth, node and alias limits first (shared/limits.ts), from a streaming scan of the text.
    prescanDocument(text, DESCRIPTION_LIMITS);
    try {
      // JSON first: YAML 1.2 parses nearly all JSON, but not every JSON document (tab indentation, for one).
      document = JSON.parse(text);
      format = 'json';
    } catch {
      source = parseBoundedYaml(text, DESCRIPTION_LIMITS, lineCounter);
      if (source.errors.length > 0) {
        const error = source.errors[0];
        const { line, col } = lineCounter.linePos(error.pos[0]);
        throw invalid(`not valid YAML or JSON: ${error.message.split('\n')[0]} (line ${line}, column ${col})`);
      }
      document = documentValue(source, DESCRIPTION_LIMITS);
    }
  } catch (error) {
    if (!(error instanceof DocumentRejected)) throw error;
    const where = error.offset === undefined ? '' : ` (line ${lineOfOffset(text, error.offset)})`;
    throw new HttpError(error.statusCode, `Invalid OpenAPI description: ${error.message}${where}`);
  }
  // A JSON description is parsed as YAML too only when an error needs a line number.
  const sourceTree = () => (source ??= parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false }));
  const lineOf = (pointer: string) => sourceLine(sourceTree().contents, lineCounter, pointer);
  const at = (pointer: string) => {
    const line = lineOf(pointer);
    return line ? `${pointer} (line ${line})` : pointer;
  };

  if (!document || typeof document !== 'object' || Array.isArray(document))
    throw invalid('the document must be a YAML or JSON object');
  const fields = document as Record<string, unknown>;
  if ('swagger' in fields)
    throw invalid(`${at('/swagger')}: Swagger 2.0 descriptions are not accepted; upload OpenAPI 3.0 or 3.1`);
  const missing = ['openapi', 'info', 'paths'].filter((field) => fields[field] === undefined || fields[field] === null);
  if (missing.length > 0) throw invalid(`${missing.map((f) => `/${f}`).join(', ')}: required field(s) missing`);
  if (typeof fields.openapi !== 'string' || !OPENAPI_3_0_OR_3_1.test(fields.openapi)) {
    throw invalid(
      `${at('/openapi')}: must be an OpenAPI 3.0.x or 3.1.x version such as "3.0.3" or "3.1.0", got ${JSON.stringify(fields.openapi)}`,
    );
  }

  if (expandedNodeCount(document) > MAX_EXPANDED_NODES) {
    throw invalid(`the description expands to more than ${MAX_EXPANDED_NODES} nodes through its $refs`);
  }
  // Internal references only: a description naming a file or URL must not make the service read or fetch it.
  const options = {
    resolve: { external: false },
    dereference: { circular: 'ignore' as const },
    timeoutMs: DESCRIPTION_VALIDATION.timeoutMs,
  };
  const { dereference, validate } = await openapiParser();
  let expanded: Record<string, unknown>;
  try {
    expanded = (await dereference(structuredClone(document) as never, options)) as Record<string, unknown>;
  } catch (error) {
    throw invalid(`unresolvable $ref: ${(error as Error).message}`);
  }

  let result: Awaited<ReturnType<typeof validate>>;
  try {
    result = await validate(expanded as never, options);
  } catch (error) {
    throw invalid((error as Error).message);
  }
  if (!result.valid) {
    const pointers = pointersByLine(expanded);
    const details = result.errors.slice(0, MAX_REPORTED_ERRORS).map(({ message }) => {
      const [first] = message.split('\n');
      const what = first.replace(/^[A-Z]+ /, ''); // better-ajv-errors' category label (REQUIRED, PROPERTY, ...)
      // Schema errors come with a code frame of the expanded document rendered as JSON: its marked line says where.
      const marked = message.match(/^>\s*(\d+) \|/m);
      const pointer = marked ? pointers[Number(marked[1]) - 1] : undefined;
      return pointer !== undefined ? `${at(pointer || '/')}: ${what}` : what;
    });
    const more = result.errors.length - details.length + result.additionalErrors;
    throw invalid(details.join('; ') + (more > 0 ? `; and ${more} more` : ''));
  }
  return { text, format, openapiVersion: fields.openapi, routes: descriptionRoutes(document) };
}

/**
 * The number of nodes of the document once its internal `$ref`s are expanded, computed without expanding them
 * (each reference target is counted once and its count reused), so that a small document whose references
 * multiply is refused before the validator expands it. A circular reference counts as the `$ref` it stays.
 */
function expandedNodeCount(document: unknown): number {
  const counted = new Map<string, number>();
  const counting = new Set<string>();
  const count = (node: unknown): number => {
    if (!node || typeof node !== 'object') return 1;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#')) {
      if (counted.has(ref)) return counted.get(ref)!;
      if (counting.has(ref)) return 1;
      counting.add(ref);
      const target = resolvePointer(document, decodePointer(ref));
      const total = target === undefined ? 1 : count(target);
      counting.delete(ref);
      counted.set(ref, total);
      return total;
    }
    let total = 1;
    for (const child of Object.values(node)) total += count(child);
    return total;
  };
  return count(document);
}

/** A `#/...` reference's JSON pointer; a malformed percent-escape is the client's error. */
function decodePointer(ref: string): string {
  try {
    return decodeURIComponent(ref.slice(1));
  } catch {
    throw invalid(`$ref ${JSON.stringify(ref.slice(0, 200))}: malformed percent-escape`);
  }
}

function resolvePointer(document: unknown, pointer: string): unknown {
  let node = document;
  for (const segment of pointer.split('/').slice(1).map(unescapePointer)) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** For each line of `JSON.stringify(value, null, 2)`, the JSON pointer of the value that line opens or closes. */
function pointersByLine(value: unknown): string[] {
  const lines = [''];
  const visit = (node: unknown, pointer: string) => {
    if (!node || typeof node !== 'object') return;
    const entries = Array.isArray(node)
      ? node.map((v, i) => [String(i), v] as const)
      : Object.entries(node).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return;
    for (const [key, child] of entries) {
      const childPointer = `${pointer}/${escapePointer(key)}`;
      lines.push(childPointer);
      visit(child, childPointer);
    }
    lines.push(pointer);
  };
  visit(value, '');
  return lines;
}

/** The line of the uploaded text where the value at `pointer` is written, when the path can be followed in it. */
function sourceLine(root: Node | null, lineCounter: LineCounter, pointer: string): number | undefined {
  let node: unknown = root;
  let position = root?.range?.[0];
  for (const segment of pointer.split('/').slice(1).map(unescapePointer)) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === segment);
      if (!pair) return undefined;
      position = (pair.key as Node).range?.[0];
      node = pair.value;
    } else if (isSeq(node)) {
      node = node.items[Number(segment)];
      position = (node as Node | undefined)?.range?.[0];
    } else {
      return undefined;
    }
  }
  return position === undefined ? undefined : lineCounter.linePos(position).line;
}

// In a worker started by validateDescription (last in the module: everything above is initialized by now).
if (!isMainThread && (workerData as { kind?: string } | null)?.kind === WORKER_KIND) {
  const answer = (message: WorkerAnswer) => parentPort!.postMessage(message);
  parentPort!.on('message', (text: string) =>
    validateHere(text).then(
      (valid) => answer({ valid }),
      (error: Error) => {
        if (error instanceof HttpError) answer({ refused: { statusCode: error.statusCode, message: error.message } });
        // A description nested too deeply through its references for the validator's recursion.
        else if (error instanceof RangeError)
          answer({
            refused: {
              statusCode: 400,
              message: invalid(`its $refs nest too deeply to validate (${error.message})`).message,
            },
          });
        else throw error; // the worker's 'error': the request answers 500 and the worker is stopped
      },
    ),
  );
}
