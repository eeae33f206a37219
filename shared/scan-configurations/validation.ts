import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { validateConfig } from '@hawk-api/scanner/config';
import { parseConfiguration, type ParsedConfiguration } from './yaml.ts';

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

/** The deepest node of the document the path reaches (the key when the value is what is missing). */
function nodeAt(parsed: ParsedConfiguration, path: string): Node | undefined {
  let node: unknown = parsed.document?.contents;
  let found = node as Node | undefined;
  for (const segment of segments(path)) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
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
  const markers = errors
    .map((error) => ({ error, node: nodeAt(parsed, error.path) }))
    .filter(({ node }) => !(isScalar(node) && typeof node.value === 'string' && ENV_REFERENCE.test(node.value)))
    .map(({ error, node }) => marker(error.path, error.message, span(parsed, node)));
  return { markers };
}
