import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { validateConfig } from '@hawk-api/scanner/config';
import { parseConfiguration, type ParsedConfiguration } from './model.ts';

// POST /api/v1/configuration/{orgId}/validate: checks a configuration the way the scanner client does (its own
// config schema, imported from the scanner package, with the same messages and paths) without storing it, and
// answers `configuration.ValidatedAssetResponse`: one marker per problem, positioned for a code editor.

interface Marker {
  code: string;
  message: string;
  owner: 'StackHawk';
  resource: string;
  severity: 'ERROR';
  source: string;
  startLineNumber: number;
  startColumn: number;
  endLineNumber: number;
  endColumn: number;
}

/** `${VAR}` references are the scanner's to resolve at scan time, from its environment. */
const ENV_REFERENCE = /\$\{[A-Za-z_][A-Za-z0-9_]*(?::[^}]*)?\}/;

type Span = Pick<Marker, 'startLineNumber' | 'startColumn' | 'endLineNumber' | 'endColumn'>;

function span(parsed: ParsedConfiguration, node: Node | undefined | null): Span {
  const [start, , end] = node?.range ?? [0, 0, 0];
  const from = parsed.lineCounter.linePos(start);
  const to = parsed.lineCounter.linePos(end);
  return { startLineNumber: from.line, startColumn: from.col, endLineNumber: to.line, endColumn: to.col };
}

/** `app.authentication.otherParams[0].name` -> ['app', 'authentication', 'otherParams', 0, 'name']. */
const segments = (path: string) =>
  [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]));

/** At most this many markers are listed; beyond, one more marker counts the others (the answer stays small). */
export const MAX_MARKERS = 100;

type Pair = { key: unknown; value: unknown };

/**
 * The deepest node of the document the path reaches (the key when the value is what is missing). `pairsOf` indexes
 * each mapping's keys once, so that a marker costs a lookup per path segment, not a scan of the mapping.
 */
function nodeAt(
  parsed: ParsedConfiguration,
  path: string,
  pairsOf: (map: object) => Map<string, Pair>,
): Node | undefined {
  let node: unknown = parsed.document?.contents;
  let found = node as Node | undefined;
  for (const segment of segments(path)) {
    if (isMap(node)) {
      const pair = pairsOf(node).get(String(segment));
      if (!pair) break;
      found = (pair.value ?? pair.key) as Node;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number' && node.items[segment]) {
      node = found = node.items[segment] as Node;
    } else {
      break;
    }
  }
  return found;
}

export function validateScanConfigurationText(conf: string, name: string | undefined): { markers: Marker[] } {
  const parsed = parseConfiguration(conf);
  const resource = name ?? 'stackhawk.yml';
  const marker = (code: string, message: string, at: Span): Marker => ({
    code,
    message,
    owner: 'StackHawk',
    resource,
    severity: 'ERROR',
    source: 'hawk-scanner',
    ...at,
  });
  if (parsed.syntaxError) {
    const { message, line, col } = parsed.syntaxError;
    return {
      markers: [
        marker('', `invalid YAML: ${message}`, {
          startLineNumber: line,
          startColumn: col,
          endLineNumber: line,
          endColumn: col,
        }),
      ],
    };
  }
  if (!parsed.value)
    return {
      markers: [
        marker('', 'the file must be a YAML mapping with the root key app', span(parsed, parsed.document?.contents)),
      ],
    };
  const { errors = [] } = validateConfig(parsed.value);
  const indexes = new WeakMap<object, Map<string, Pair>>();
  const pairsOf = (map: object) => {
    let index = indexes.get(map);
    if (!index) {
      index = new Map();
      for (const item of (map as { items: Pair[] }).items)
        if (isScalar(item.key) && !index.has(String(item.key.value))) index.set(String(item.key.value), item);
      indexes.set(map, index);
    }
    return index;
  };
  const markers = errors
    .map((error) => ({ error, node: nodeAt(parsed, error.path, pairsOf) }))
    .filter(({ node }) => !(isScalar(node) && typeof node.value === 'string' && ENV_REFERENCE.test(node.value)))
    .map(({ error, node }) => marker(error.path, error.message, span(parsed, node)));
  if (markers.length <= MAX_MARKERS) return { markers };
  const rest = markers.length - MAX_MARKERS;
  const first = markers[MAX_MARKERS];
  return {
    markers: [
      ...markers.slice(0, MAX_MARKERS),
      marker('', `${rest} more problems not listed (fix those above first)`, {
        startLineNumber: first.startLineNumber,
        startColumn: first.startColumn,
        endLineNumber: first.startLineNumber,
        endColumn: first.startColumn,
      }),
    ],
  };
}
