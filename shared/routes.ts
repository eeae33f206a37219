import { z } from 'zod';
import type { Permission } from './permissions.ts';
import type { ActivityType } from './audit-types.ts';

// THE route table: the single source of truth for the service's operations. The CDK stack (one Lambda and one
// API route each), the local server, the OpenAPI generator, the protobuf generator and the tests all read it.
export interface Route {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path as the public API spells it; `{name}` segments are parameters. */
  path: string;
  /** The module under functions/ whose `handler` export serves the operation. */
  handler: string;
  tag: string;
  summary: string;
  /** 'apiKey': X-ApiKey header (login only); 'bearer': an access token. */
  auth: 'apiKey' | 'bearer';
  /** Checked against the caller's membership of the organization the operation touches. */
  permission?: Permission;
  /** The user-activity entry the operation writes, in the same transaction as its change. */
  audit?: ActivityType;
  /** Path parameters other than UUID `...Id` ones (those are validated as UUIDs automatically). */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** JSON request body; absent: the operation takes none. */
  body?: z.ZodType;
  /** Raw (non-JSON) request body content types, e.g. the OpenAPI upload. */
  rawBody?: { contentTypes: string[]; maxBytes: number };
  /** Protobuf message name of the 200 response ('package.Message'), or 'empty' for an empty 200. */
  response: string;
  /** S3 access the operation's Lambda is granted (hosted assets); none when absent. */
  storage?: 'read' | 'readwrite';
  /** Response media types offered; defaults to JSON and protobuf. */
  mediaTypes?: string[];
  /** Extra notes for the OpenAPI description. */
  description?: string;
}

export const routes: Route[] = [
  {
    operationId: 'login',
    method: 'GET',
    path: '/api/v1/auth/login',
    handler: 'login',
    tag: 'Api Authentication',
    summary: 'Login with API Key',
    auth: 'apiKey',
    response: 'user.JWT',
    description: 'Exchanges the `X-ApiKey` header for an access token (a JWT valid for 30 minutes).',
  },
  {
    operationId: 'refreshToken',
    method: 'GET',
    path: '/api/v1/auth/refresh-token',
    handler: 'refresh-token',
    tag: 'Api Authentication',
    summary: 'Refresh Access Token',
    auth: 'bearer',
    response: 'user.JWT',
    description: 'Returns a new access token with a later expiry for a valid bearer token.',
  },
  {
    operationId: 'getUser',
    method: 'GET',
    path: '/api/v1/user',
    handler: 'get-user',
    tag: 'User',
    summary: 'Get Current User',
    auth: 'bearer',
    response: 'user.UserResponse',
    description: 'The calling user, with the organizations (API access enabled) it belongs to and its role in each.',
  },
];

export function routeById(operationId: string): Route {
  const route = routes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`No route with operationId ${operationId} in shared/routes.ts`);
  return route;
}

/** Names of a path's parameters, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}
