// A hosted run's start command, as the agent's poll receives it, and the failure that ends a run in ERROR.

export interface StartCommand {
  commandId: string;
  scanKey: string;
  applicationId: string;
  env: string;
  config: string;
  /** Which configuration `config` is, in words (absent from a service before it said so). */
  configuration?: string;
  targetUrl: string;
  allowPrivate: boolean;
  deadline: string | number;
  /** The application's scan policy: the plugins whose checks the engine leaves out (absent: every check runs). */
  scanPolicy?: { name: string; excludePluginIds: string[] };
  /** A RETEST_START's finding: the run attacks that request with that check only, and reports no scan. */
  retest?: RetestCommand;
}

/** The finding a retest attacks again (docs/HOSTED-SCANS.md, Retests, in the service's repository). */
export interface RetestCommand {
  findingHash: string;
  pluginId: string;
  method: string;
  /** The finding's absolute URL, on the target. */
  url: string;
  param: string;
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
