import { isMap, isScalar, LineCounter, parseDocument, type Pair } from 'yaml';

// Where each operation of an OpenAPI description is written (docs/SARIF-EXPORT.md "Locations"), and which operation
// a finding's request reached: a finding then points at a line of the description the team keeps in its repository.

export interface DescribedOperation {
  /** Lower-case HTTP method. */
  method: string;
  /** The path template as written (`/users/{userId}`). */
  path: string;
  operationId?: string;
  /** 1-based line of the method's key in the description. */
  line: number;
}

export interface OperationIndex {
  operations: DescribedOperation[];
  /** Path prefixes of the description's servers (`/api/v2` of `https://example.com/api/v2`), '' for none. */
  basePaths: string[];
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const keyOf = (pair: Pair) => (isScalar(pair.key) ? String(pair.key.value) : undefined);

/** The operations of a description (YAML or JSON), with their lines; none when it cannot be read. */
export function describedOperations(text: string): OperationIndex {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false });
  const index: OperationIndex = { operations: [], basePaths: [] };
  if (doc.errors.length > 0 || !isMap(doc.contents)) return index;
  const lineAt = (offset: number | undefined) => (offset === undefined ? 1 : lineCounter.linePos(offset).line);
  for (const pair of doc.contents.items) {
    const key = keyOf(pair);
    if (key === 'servers' && pair.value && 'items' in pair.value) {
      for (const server of (pair.value as { items: unknown[] }).items) {
        const url = isMap(server) ? server.get('url') : undefined;
        if (typeof url === 'string') index.basePaths.push(basePathOf(url));
      }
    }
    if (key !== 'paths' || !isMap(pair.value)) continue;
    for (const pathPair of pair.value.items) {
      const path = keyOf(pathPair);
      if (!path?.startsWith('/') || !isMap(pathPair.value)) continue;
      for (const methodPair of pathPair.value.items) {
        const method = keyOf(methodPair)?.toLowerCase();
        if (!method || !METHODS.has(method)) continue;
        const operationId = isMap(methodPair.value) ? methodPair.value.get('operationId') : undefined;
        index.operations.push({
          method,
          path,
          ...(typeof operationId === 'string' ? { operationId } : {}),
          line: lineAt((methodPair.key as { range?: [number, number, number] } | null)?.range?.[0]),
        });
      }
    }
  }
  if (index.basePaths.length === 0) index.basePaths.push('');
  return index;
}

/** The path part of a server URL (variables such as `{basePath}` are left as they are and match nothing). */
function basePathOf(url: string): string {
  const withoutOrigin = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  return withoutOrigin.replace(/\/+$/, '');
}

const segmentsOf = (path: string) => path.split('/').filter((s) => s !== '');

/** A template segment (`{id}`, `{id}.json`) matches any segment; the others only themselves. */
const isTemplated = (segment: string) => segment.includes('{');

/**
 * The operation a request reached: same method, and the URL's path (less a server's base path) matching the
 * template segment by segment. Of several matches, the one with the most literal segments wins (`/users/me` before
 * `/users/{id}`). Compared segment by segment, never through a regular expression built from the description.
 */
export function operationOf(index: OperationIndex, method: string, url: string): DescribedOperation | undefined {
  const path = pathOf(url);
  const wanted = method.toLowerCase();
  let best: DescribedOperation | undefined;
  let bestScore = -1;
  for (const base of index.basePaths) {
    if (base && path !== base && !path.startsWith(`${base}/`)) continue;
    const segments = segmentsOf(path.slice(base.length));
    for (const op of index.operations) {
      if (op.method !== wanted) continue;
      const template = segmentsOf(op.path);
      if (template.length !== segments.length) continue;
      let score = 0;
      let matches = true;
      for (let i = 0; i < template.length && matches; i++) {
        if (isTemplated(template[i])) continue;
        if (template[i] === segments[i]) score++;
        else matches = false;
      }
      if (matches && score > bestScore) {
        best = op;
        bestScore = score;
      }
    }
  }
  return best;
}

/** The decoded path of an absolute URL or of a path with a query. */
function pathOf(url: string): string {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/[?#].*$/s, '') || '/';
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
