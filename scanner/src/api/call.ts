// Every call the scanner makes to the service (import, sarif, the agent) names its operation by its path in the
// service's openapi.json, with the path parameters, query, JSON body and answer typed from there (schema.gen.ts,
// types only, written by `npm run generate -w @hawk-api/scanner`; docs/LAYOUT.md), as the dashboard's calls are: a
// renamed route or a changed parameter fails the typecheck instead of an agent at run time. The HTTP itself (the
// token, retries, timeouts, headers) stays net/service.ts's.
import type { CallOptions, Service } from '../net/service.ts';
import type { paths } from './schema.gen.ts';

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH';

/** The paths in openapi.json that have an operation for `method`. */
export type PathOf<M extends Method> = {
  [P in keyof paths]: paths[P][Lowercase<M>] extends object ? P : never;
}[keyof paths];

type Operation<M extends Method, P extends PathOf<M>> = Extract<paths[P][Lowercase<M>], object>;

type Parameters<Op> = Op extends { parameters: { path?: unknown; query?: unknown } }
  ? Pick<Op['parameters'], 'path' | 'query'>
  : never;

type JsonOf<T> = T extends { content: { 'application/json': infer J } } ? J : never;

/** The operation's path parameters and query, and its JSON body (a text body goes in the options' `text`). */
export type Request<M extends Method, P extends PathOf<M>> = Parameters<Operation<M, P>> & {
  body?: Operation<M, P> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;
};

/**
 * An answer as the service sends it (docs/COMPATIBILITY.md, Compatibility choices). The public schemas mark every
 * field optional, but the service's JSON has every scalar, list and map field, with its default when unset: only a
 * sub-message left unset, or an enum value its public enum lacks, is left out.
 */
type Sent<T> = T extends readonly (infer E)[]
  ? Sent<E>[]
  : T extends object
    ? { [K in keyof T as AlwaysSent<T[K]> extends true ? K : never]-?: Sent<NonNullable<T[K]>> } & {
        [K in keyof T as AlwaysSent<T[K]> extends true ? never : K]?: Sent<NonNullable<T[K]>>;
      }
    : T;

type AlwaysSent<V> = [NonNullable<V>] extends [string]
  ? string extends NonNullable<V>
    ? true // a string (an enum is a union of literals)
    : false
  : [NonNullable<V>] extends [number | boolean | readonly unknown[]]
    ? true
    : string extends keyof NonNullable<V>
      ? true // a map
      : false;

type Responses<Op> = Op extends { responses: infer R } ? R : never;

/** The operation's 200 (or 201) JSON answer; `unknown` for an answer without JSON. */
export type Answer<M extends Method, P extends PathOf<M>> =
  Responses<Operation<M, P>> extends { 200: infer R } | { 201: infer R }
    ? [JsonOf<R>] extends [never]
      ? unknown
      : Sent<JsonOf<R>>
    : unknown;

/** The request's path: the path parameters put into the route's path, then the query, in its order. */
export function servicePath<M extends Method, P extends PathOf<M>>(path: P, request: Request<M, P>): string {
  const { path: parameters, query } = request as { path?: Record<string, unknown>; query?: Record<string, unknown> };
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(parameters?.[name])));
  const pairs = Object.entries(query ?? {}).filter(([, value]) => value !== undefined);
  const search = pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  return search.length ? `${filled}?${search.join('&')}` : filled;
}

/** One operation's call: its JSON answer (Service.call). */
export function serviceCall<M extends Method, P extends PathOf<M>>(
  api: Service,
  method: M,
  path: P,
  request: Request<M, P>,
  options?: CallOptions,
): Promise<Answer<M, P>> {
  return api.call<Answer<M, P>>(method, servicePath<M, P>(path, request), request.body, options);
}

/** One operation's successful answer itself (Service.fetch), for a body read as text or a header. */
export function serviceFetch<M extends Method, P extends PathOf<M>>(
  api: Service,
  method: M,
  path: P,
  request: Request<M, P>,
  options?: CallOptions,
): Promise<Omit<Response, 'json'> & { json(): Promise<Answer<M, P>> }> {
  return api.fetch(method, servicePath<M, P>(path, request), request.body, options);
}
