// The one small contract every scan engine meets: take the scan's target and logged-in session, produce findings,
// honour a deadline and a stop. Engines: wapiti.ts (Debian's wapiti 3.0.x), zap.ts (OWASP ZAP, where installed).
import type { ReportedAlert } from '../zap/reported.ts';

export interface EngineRun {
  /** The scan's target (app.host). */
  targetUrl: string;
  /**
   * Headers (a session's cookie, token) sent with every request. The agent passes none: its pinning proxy carries
   * the session and renews it.
   */
  headers: Record<string, string>;
  /** More URLs to start crawling from (the logged-in area's testPath, which links may not lead to). */
  startUrls?: string[];
  /** A forward proxy all the engine's requests must go through (the agent's pinning proxy), if any. */
  proxyUrl?: string;
  /**
   * For an HTTPS target: the authority (PEM) of the certificate the proxy shows for the target, made for this run;
   * an engine that checks certificates trusts it.
   */
  proxyAuthority?: string;
  /** Epoch ms: the engine must have stopped by then. */
  deadline: number;
  /** Aborted when the scan is stopped: the engine stops at once and its findings are discarded. */
  signal: AbortSignal;
  /** A directory of its own for reports and state (removed after the run). */
  workDir: string;
  /** One line of the run's log. */
  log: (line: string) => void;
  /**
   * Told the findings once the engine's report is written, possibly before its process ended (wapiti's exit takes
   * a while), so the agent uploads them meanwhile; `run` still answers the same findings, or fails.
   */
  onReport?: (alerts: ReportedAlert[]) => void;
  /**
   * The scan policy's disabled plugins (scan-rule ids): the engine runs none of the checks they stand for
   * (docs/SCAN-POLICIES.md, Hosted scans and wapiti's modules).
   */
  excludedPluginIds?: readonly string[];
  /**
   * A retest: only this request (method, absolute URL, parameter) is attacked, with only the checks of this plugin
   * (the one that reported the finding).
   */
  focus?: { method: string; url: string; param: string; pluginId: string };
  /** Told when the engine starts an attack module: the requests from then on are that module's. */
  onModule?: (name: string) => void;
  /** Told, before `run` answers, what the engine's crawl found and what each of its modules did. */
  onCoverage?: (coverage: EngineCoverage) => void;
}

/** What an engine covered: the pages and forms its crawl found, and its attack modules. */
export interface EngineCoverage {
  /** The distinct URLs crawled. */
  pages: number;
  forms: number;
  modules: { name: string; findings: number; cutAtTimeLimit: boolean }[];
}

export interface Engine {
  name: string;
  /** How to install it, for the error of a run that finds no engine installed. */
  install: string;
  /** The engine's version when it is installed here, else undefined. */
  version(): Promise<string | undefined>;
  run(run: EngineRun): Promise<ReportedAlert[]>;
}

/** The engine failed: crashed, exited non-zero, timed out or wrote no report. The message says what to do. */
export class EngineError extends Error {
  override name = 'EngineError';
}

/** The run was stopped (stopScan). */
export class EngineStopped extends Error {
  override name = 'EngineStopped';
}
