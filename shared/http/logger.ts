import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logs (Powertools). Every line of a request carries its request id. */
export const logger = new Logger({
  serviceName: 'hawk-api',
  logLevel: (process.env.LOG_LEVEL as 'INFO' | 'DEBUG' | 'WARN' | 'ERROR' | 'SILENT' | undefined) ?? 'INFO',
});
