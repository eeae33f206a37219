// Errors that carry their HTTP answer. Domain code throws these; the error middleware turns them into
// `{"message": ...}` responses. Anything else thrown is a bug and answers 500 without detail.
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
/** Deliberately vague (docs/API.md, Errors): the reason is logged, not returned. */
export const unauthorized = (message = 'Unauthorized') => new HttpError(401, message);
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (message: string) => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
export const gone = (message: string) => new HttpError(410, message);
export const payloadTooLarge = (message: string) => new HttpError(413, message);
export const notAcceptable = (message: string) => new HttpError(406, message);
export const unsupportedMediaType = (message: string) => new HttpError(415, message);
export const tooManyRequests = (retryAfterSeconds: number) =>
  new HttpError(429, `Rate limit exceeded: retry after ${retryAfterSeconds} s`, {
    'Retry-After': String(retryAfterSeconds),
  });
