import { pathParameterNames, pathPattern, routeKeyParameterNames, type Route } from './route.ts';
import type { LambdaEvent } from './types.ts';

/**
 * The route's path parameter values, in the order of pathParameterNames(route.path): API Gateway's
 * `pathParameters` (decoded, and named after its own template, the event's routeKey), or for an event without them
 * (a hand-made one) the raw path's segments, still percent-encoded (`decoded: false`).
 */
export function pathParameterReader(
  route: Route,
): (event: LambdaEvent) => { values: (string | undefined)[]; decoded: boolean } {
  const count = pathParameterNames(route.path).length;
  const template = pathPattern(route.path);
  return (event) => {
    if (event.pathParameters) {
      const gatewayNames = routeKeyParameterNames(event.routeKey);
      return { values: Array.from({ length: count }, (_, i) => event.pathParameters![gatewayNames[i]]), decoded: true };
    }
    return { values: template.exec(event.rawPath)?.slice(1) ?? [], decoded: false };
  };
}

/**
 * A path with a `.` or `..` segment (however encoded) is refused before anything reads it, by the operations and by
 * the local server: API Gateway routes the raw path while URL parsers resolve dot segments, so the same request
 * could otherwise reach different operations locally and on AWS.
 */
export const hasDotSegment = (path: string) => path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
export const DOT_SEGMENT_REFUSED = 'Bad Request: the path has a "." or ".." segment; send it without them';
