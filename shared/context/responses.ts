import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

// Ready HTTP answers a use case may return (downloads, exports, redirects): the pipeline passes them through as they
// are (shared/http/middlewares.ts).

const JSON_TYPE = 'application/json';

/** A handler result that is already an HTTP response (redirects, raw bodies): passed through as is. */
export class RawResponse {
  constructor(readonly response: APIGatewayProxyStructuredResultV2) {}
}

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': JSON_TYPE, ...headers }, body: JSON.stringify(body) };
}
