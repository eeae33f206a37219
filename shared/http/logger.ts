import { Logger } from '@aws-lambda-powertools/logger';
import { currentScope } from '../request-scope.ts';

const base = new Logger({
  serviceName: 'hawk-api',
  logLevel: (process.env.LOG_LEVEL as 'INFO' | 'DEBUG' | 'WARN' | 'ERROR' | 'SILENT' | undefined) ?? 'INFO',
});

type Attributes = Record<string, unknown>;

/** The request id of the request being served (request-scope.ts), added to each line as it is written. */
const withRequestId = (attributes: Attributes = {}): Attributes => {
  const requestId = currentScope()?.requestId;
  return requestId ? { requestId, ...attributes } : attributes;
};

/**
 * Structured JSON logs (Powertools). Every line carries the id of the request it belongs to, read from the
 * request's AsyncLocalStorage scope when written: concurrent requests in one process (npm start, a Lambda
 * serving several) never share or overwrite each other's id, as process-global logger keys would.
 */
export const logger = {
  debug: (message: string, attributes?: Attributes) => base.debug(message, withRequestId(attributes)),
  info: (message: string, attributes?: Attributes) => base.info(message, withRequestId(attributes)),
  warn: (message: string, attributes?: Attributes) => base.warn(message, withRequestId(attributes)),
  error: (message: string, attributes?: Attributes) => base.error(message, withRequestId(attributes)),
};
