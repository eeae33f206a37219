import { gunzipSync, gzipSync } from 'node:zlib';

// The paths of an application's hosted description (docs/ISSUES.md, The rule): kept beside its metadata item when
// it is stored, so that recording a scan's findings templates their paths by it (`/users/123` is `/users/{id}` under
// `/users/{userId}`) with one read of a small item, never the description itself. The item is read and written in repository.ts.

/** What issue paths need of a description: its paths' keys and its servers' base paths. */
export interface DescriptionRoutes {
  /** The keys of its `paths` object, in its order (`/users/{userId}`). */
  paths: string[];
  /** The paths of its servers' URLs, their variables at their defaults (`/api/v1`); none when it has no servers. */
  basePaths: string[];
}

/** The stored item's gzipped JSON stays below DynamoDB's 400 KB item limit, with room for its keys. */
const MAX_STORED_BYTES = 350_000;

const isObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value);

/** A server URL's path: its `{variables}` at their defaults, without scheme, host, query or fragment. */
function serverPath(server: unknown): string | undefined {
  if (!isObject(server) || typeof server.url !== 'string') return undefined;
  const variables = isObject(server.variables) ? server.variables : {};
  const url = server.url.replace(/\{([^{}]*)\}/g, (whole, name: string) => {
    const variable = Object.hasOwn(variables, name) ? variables[name] : undefined;
    return isObject(variable) && typeof variable.default === 'string' ? variable.default : whole;
  });
  return url.replace(/^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/, 1)[0];
}

/** The routes of a description's document (its `paths` keys starting with `/`, its servers' paths). */
export function descriptionRoutes(document: unknown): DescriptionRoutes {
  const fields = isObject(document) ? document : {};
  const paths = isObject(fields.paths) ? Object.keys(fields.paths).filter((p) => p.startsWith('/')) : [];
  const servers = Array.isArray(fields.servers) ? fields.servers : [];
  const basePaths = [
    ...new Set(servers.map(serverPath).filter((p): p is string => p !== undefined && p.replace(/\//g, '') !== '')),
  ];
  return { paths, basePaths };
}

/**
 * The routes gzipped for the item: a description whose paths would not fit (far beyond common ones: millions of
 * characters of paths) keeps its first paths that do, in its order.
 */
export function encodedRoutes(routes: DescriptionRoutes): Buffer {
  let kept = routes.paths.length;
  for (;;) {
    const encoded = gzipSync(JSON.stringify({ paths: routes.paths.slice(0, kept), basePaths: routes.basePaths }));
    if (encoded.length <= MAX_STORED_BYTES || kept === 0) return encoded;
    kept = Math.floor(kept / 2);
  }
}

/** The routes of a stored item's `routes`. */
export const decodedRoutes = (stored: Uint8Array): DescriptionRoutes =>
  JSON.parse(gunzipSync(stored).toString('utf8')) as DescriptionRoutes;
