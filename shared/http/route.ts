import type * as z from 'zod/mini';
import type { ActivityType } from '../audit/model.ts';
import type { Permission } from '../context/permissions.ts';

// What a route is, and the paths built from routes (docs/LAYOUT.md): the route table (shared/routes.ts) lists the
// service's operations as Routes; the pipeline, the CDK stack, the local server and the generators read them through
// these helpers, given the routes they need (the table itself is not imported here, so a function's bundle holds
// only its own route).

export interface Route {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path as the public API spells it; `{name}` segments are parameters (their names type the handler's `params`). */
  path: `/${string}`;
  tag: string;
  summary: string;
  /** What the operation does beyond its summary: the OpenAPI description's prose (openapi.json). */
  notes?: string;
  /**
   * 'apiKey': X-ApiKey header (login only); 'bearer': an access token; 'none': no credentials: the sign-in steps that
   * come before any (single sign-on's start and callback) or a body carrying a secret of its own (acceptInvitation's
   * token). Operations without a token are rate limited per source address.
   */
  auth: 'apiKey' | 'bearer' | 'none';
  /** Checked against the caller's membership of the organization the operation touches. */
  permission?: Permission;
  /** The user-activity entry the operation writes, in the same transaction as its change. */
  audit?: ActivityType;
  /** Path parameters other than UUID `...Id` ones (those are validated as UUIDs automatically). */
  params?: z.ZodMiniObject;
  query?: z.ZodMiniObject;
  /** JSON request body; absent: the operation takes none. */
  body?: z.ZodMiniType;
  /** Largest JSON body accepted, in bytes (checked before parsing); default MAX_JSON_BODY_BYTES (shared/limits.ts). */
  maxBodyBytes?: number;
  /**
   * The body is parsed only when the handler calls `readBody()`, after its access check (the target's existence,
   * ownership and team): required for every body larger than MAX_JSON_BODY_BYTES, so a caller without access never
   * gets a large body parsed. Other bodies are parsed after authentication and organization authorization.
   */
  bodyAfterAccess?: true;
  /** Raw (non-JSON) request body content types, e.g. the OpenAPI upload. */
  rawBody?: { contentTypes: string[]; maxBytes: number };
  /**
   * Protobuf message name of the 200 response ('package.Message'), 'empty' for an empty 200, 'noContent' for a 204,
   * or 'raw' for a document of another format that the handler answers itself (a RawResponse), described by
   * `rawSchema`.
   */
  response: string;
  /** The JSON Schema document a 'raw' response follows (the OpenAPI description links it). */
  rawSchema?: { description: string; url: string };
  /** The JSON answer is this one field of the response message (the public API answers a bare map there). */
  responseField?: string;
  /** Response media types offered; defaults to JSON and protobuf. */
  mediaTypes?: string[];
}

/** Matches a concrete path against a route's path; the groups are the parameters' values, in order. */
export function pathPattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/\{\w+\}/g, '([^/]+)')}/?$`);
}

/** Names of a path's parameters, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}

/** The names of a path's `{name}` parameters, as a type: `'orgId' | 'appId'` for `/org/{orgId}/app/{appId}`. */
export type PathParameterName<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParameterName<Rest>
  : never;

/** The module under functions/ whose `handler` export serves the route: its operationId in kebab case. */
export const handlerFile = (route: Route) =>
  route.operationId
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();

/**
 * API Gateway wants one name per path position: `/scan/{orgId}` (GET) and `/scan/{scanId}` (DELETE) are the same
 * route shape. Each parameter is renamed after the first route that reaches that position. API Gateway passes
 * `pathParameters` under these names; the pipeline reads them back by position from the event's route key (routeKeyParameterNames).
 */
const gatewayPathsOf = new WeakMap<readonly Route[], Map<Route, string>>();
export function apiGatewayPaths(all: readonly Route[]): Map<Route, string> {
  let paths = gatewayPathsOf.get(all);
  if (!paths) gatewayPathsOf.set(all, (paths = gatewayPaths(all)));
  return paths;
}

function gatewayPaths(all: readonly Route[]): Map<Route, string> {
  const canonical = new Map<string, string>();
  const result = new Map<Route, string>();
  for (const route of all) {
    const segments = route.path.split('/');
    const renamed = segments.map((segment, i) => {
      if (!segment.startsWith('{')) return segment;
      const prefix = segments
        .slice(0, i)
        .map((s) => (s.startsWith('{') ? '{}' : s))
        .join('/');
      if (!canonical.has(prefix)) canonical.set(prefix, segment);
      return canonical.get(prefix)!;
    });
    result.set(route, renamed.join('/'));
  }
  return result;
}

/**
 * The names API Gateway gave an event's path parameters: those of its route key (`GET /api/v1/app/{appId}`, the
 * template the stack registered), in path order. Read from the event, so that a function needs no other route.
 */
export function routeKeyParameterNames(routeKey: string): string[] {
  return pathParameterNames(routeKey.slice(routeKey.indexOf(' ') + 1));
}

/**
 * The names API Gateway gives a route's path parameters among `all` routes (the table's), in path order (the route's
 * own names differ at shared positions).
 */
export function gatewayParameterNames(route: Route, all: readonly Route[]): string[] {
  return pathParameterNames(apiGatewayPaths(all).get(route) ?? route.path);
}
