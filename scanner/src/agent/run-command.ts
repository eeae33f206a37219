// A hosted run's start command, as the agent's poll receives it, and the failure that ends a run in ERROR.

export interface StartCommand {
  commandId: string;
  scanKey: string;
  applicationId: string;
  env: string;
  config: string;
  targetUrl: string;
  allowPrivate: boolean;
  deadline: string | number;
}

export type ErrorType = 'UNKNOWN' | 'AUTHENTICATION' | 'PROVISIONING' | 'DEVICE';

export class RunFailed extends Error {
  constructor(
    readonly errorType: ErrorType,
    message: string,
  ) {
    super(message);
  }
}
