import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError, EngineStopped, type EngineCoverage, type EngineRun } from '../src/engines/engine.ts';
import { wapitiEngine } from '../src/engines/wapiti.ts';
import { startPinningProxy } from '../src/agent/pinning-proxy.ts';

// The wapiti engine with Debian's real wapiti (a missing wapiti fails these tests): its bounded flags, a stop
// (SIGTERM, SIGKILL after a grace period), and every way it fails ending as an error, never as a clean scan.

interface Target {
  url: string;
  requests: string[];
  delayMs: number;
  /** Each attack (a request whose parameter is not the linked value) waits this long (ms); the crawl does not. */
  attackDelayMs: number;
  server: Server;
}

/** A small target: a reflected XSS in `q`, a cookie without flags; each answer waits `delayMs`, attacks longer. */
async function startTarget(): Promise<Target> {
  const target: Target = {
    url: '',
    requests: [],
    delayMs: 0,
    attackDelayMs: 0,
    server: undefined as unknown as Server,
  };
  target.server = createServer((req, res) => {
    target.requests.push(`${req.method} ${req.url}`);
    const query = new URL(req.url ?? '/', 'http://target').searchParams;
    const attacked = query.has('q') && query.get('q') !== 'shoes';
    setTimeout(
      () => {
        const url = new URL(req.url ?? '/', 'http://target');
        const reflected = url.searchParams.get('q');
        res.writeHead(url.pathname === '/' || reflected !== null ? 200 : 404, {
          'content-type': 'text/html',
          'set-cookie': 'sid=abc; Path=/',
        });
        res.end(
          url.pathname === '/'
            ? `<html><body><a href="/search?q=shoes">search</a></body></html>`
            : `<html><body>Results for ${reflected}</body></html>`,
        );
      },
      target.delayMs + (attacked ? target.attackDelayMs : 0),
    );
  });
  await new Promise<void>((resolve) => target.server.listen(0, '127.0.0.1', resolve));
  target.url = `http://127.0.0.1:${(target.server.address() as AddressInfo).port}/`;
  return target;
}

let target: Target;
let workDirs: string;
beforeAll(async () => {
  target = await startTarget();
  workDirs = await mkdtemp(join(tmpdir(), 'hawk-wapiti-test-'));
});
afterAll(async () => {
  target.server.closeAllConnections();
  await new Promise((resolve) => target.server.close(resolve));
  await rm(workDirs, { recursive: true, force: true });
});
let runs = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function runOf(overrides: Partial<EngineRun> = {}): EngineRun & { lines: string[] } {
  const lines: string[] = [];
  return {
    targetUrl: target.url,
    headers: {},
    deadline: Date.now() + 120_000,
    signal: new AbortController().signal,
    workDir: join(workDirs, String(++runs)),
    log: (line) => lines.push(line),
    lines,
    ...overrides,
  };
}

describe('the wapiti engine', { timeout: 120_000 }, () => {
  it('scans through the pinning proxy with bounded flags and answers the findings', async () => {
    const proxyLines: string[] = [];
    const proxy = await startPinningProxy(new URL(target.url), '127.0.0.1', (line) => proxyLines.push(line));
    try {
      const engine = wapitiEngine({ maxAttackSeconds: 20 });
      expect(await engine.version()).toMatch(/^3\.0\./);
      const run = runOf({ proxyUrl: proxy.url, headers: { Cookie: 'sid=secret-session' } });
      const alerts = await engine.run(run);
      // Read as an imported Wapiti report is: the same plugin ids, URLs on the target's origin.
      const xss = alerts.find((alert) => alert.pluginId === 'wapiti.cross-site-scripting');
      expect(xss?.uris.map((uri) => `${uri.requestMethod} ${uri.uri} ${uri.param}`)).toEqual([
        `GET ${new URL(target.url).origin}/search q`,
      ]);
      expect(alerts.map((alert) => alert.pluginId)).toEqual(expect.arrayContaining(['wapiti.httponly-flag-cookie']));
      const command = run.lines.find((line) => line.startsWith('wapiti -u'))!;
      for (const flag of ['--max-scan-time', '--max-attack-time', '--flush-session', '--no-bugreport', '-p'])
        expect(command).toContain(flag);
      expect(command).toContain(
        '-m crlf,csp,http_headers,csrf,cookieflags,exec,file,sql,xss,backup,htaccess,shellshock,redirect,blindsql,permanentxss,methods',
      );
      // The session's header values are not logged.
      expect(command).toContain('-H Cookie: ***');
      expect(run.lines.join('\n')).not.toContain('secret-session');
      // Wapiti loads its wapp module even when it does not run it: given a database, it does not go for one.
      expect(run.lines.join('\n')).not.toMatch(/wapp database|Downloading from the web/);
    } finally {
      await proxy.close();
    }
  });

  it('tells the findings once its report is written, before its process ended, the same it answers', async () => {
    const proxy = await startPinningProxy(new URL(target.url), '127.0.0.1', () => undefined);
    try {
      const told: { alerts: unknown; linesBefore: number }[] = [];
      const run = runOf({ proxyUrl: proxy.url });
      const alerts = await wapitiEngine({ maxAttackSeconds: 20 }).run({
        ...run,
        onReport: (found) => told.push({ alerts: found, linesBefore: run.lines.length }),
      });
      expect(told).toHaveLength(1);
      expect(told[0].alerts).toEqual(alerts);
      expect(alerts.length).toBeGreaterThan(0);
      // Told on the line saying the report was written, before the engine's last line (its exit's).
      expect(run.lines[told[0].linesBefore - 1]).toMatch(/^wapiti: A report has been generated in the file /);
      expect(run.lines.at(-1)).toMatch(/^wapiti: \d+ alerts, \d+ findings$/);
    } finally {
      await proxy.close();
    }
  });

  it('runs the modules the scan policy lets run and tells what each covered', async () => {
    const started: string[] = [];
    let coverage: EngineCoverage | undefined;
    const run = runOf({
      excludedPluginIds: ['40018', '10095'],
      onModule: (name) => started.push(name),
      onCoverage: (told) => (coverage = told),
    });
    await wapitiEngine({ maxAttackSeconds: 20 }).run(run);
    const command = run.lines.find((line) => line.startsWith('wapiti -u'))!;
    expect(command).toContain(
      '-m crlf,csp,http_headers,csrf,cookieflags,exec,file,xss,htaccess,shellshock,redirect,permanentxss,methods',
    );
    expect(run.lines).toContain('wapiti: the scan policy leaves out the modules sql,backup,blindsql');
    expect(started).toEqual([
      'crlf',
      'csp',
      'http_headers',
      'csrf',
      'cookieflags',
      'exec',
      'file',
      'xss',
      'htaccess',
      'shellshock',
      'redirect',
      'permanentxss',
      'methods',
    ]);
    // The crawl: /, /search?q=shoes and /search (wapiti asks for a linked path without its query too); no form.
    expect(coverage).toMatchObject({ pages: 3, forms: 0 });
    expect(coverage!.modules.map((m) => m.name)).toEqual(started);
    expect(coverage!.modules.find((m) => m.name === 'xss')).toMatchObject({ findings: 1, cutAtTimeLimit: false });
    expect(coverage!.modules.find((m) => m.name === 'cookieflags')!.findings).toBeGreaterThan(0);
  });

  it('leaves out a module the installed wapiti does not list, saying so', async () => {
    // A wapiti whose module list lacks `methods` (older releases differ in their modules): the real one otherwise.
    const wrapper = join(workDirs, 'older-wapiti');
    await writeFile(
      wrapper,
      '#!/bin/sh\nif [ "$1" = --list-modules ]; then wapiti --list-modules | grep -v methods; else exec wapiti "$@"; fi\n',
      { mode: 0o755 },
    );
    const run = runOf();
    await wapitiEngine({ command: wrapper, maxAttackSeconds: 20, modules: 'xss,methods' }).run(run);
    expect(run.lines).toContain('wapiti: this wapiti has no module methods: left out');
    expect(run.lines.find((line) => line.startsWith('wapiti -u'))).toContain(' -m xss ');
  });

  it('asks for its module list alongside its version, once: a run after the version waits for no listing', async () => {
    // The real wapiti, each invocation's first argument written down (with when it started and ended).
    const calls = join(workDirs, 'wapiti-calls');
    const wrapper = join(workDirs, 'counted-wapiti');
    await writeFile(
      wrapper,
      `#!/bin/sh\necho "start $1" >> ${calls}\nwapiti "$@"\ncode=$?\necho "end $1" >> ${calls}\nexit $code\n`,
      { mode: 0o755 },
    );
    const engine = wapitiEngine({ command: wrapper, maxAttackSeconds: 20, modules: 'xss' });
    expect(await engine.version()).toMatch(/^\d/);
    const run = runOf();
    await engine.run(run);
    await engine.run(runOf());
    const lines = (await readFile(calls, 'utf8')).trim().split('\n');
    // Both asked at once: the listing started before the version was answered, and each was asked once.
    expect(lines.slice(0, 2).sort()).toEqual(['start --list-modules', 'start --version']);
    expect(lines.filter((line) => line === 'start --list-modules')).toHaveLength(1);
    expect(lines.filter((line) => line === 'start --version')).toHaveLength(1);
    expect(lines.filter((line) => line === 'start -u')).toHaveLength(2);
    // The first run's wapiti started once the listing had ended (the run read it).
    expect(lines.indexOf('end --list-modules')).toBeLessThan(lines.indexOf('start -u'));
    expect(run.lines.find((line) => line.startsWith('wapiti -u'))).toContain(' -m xss ');
  });

  it('runs its crawl alone when the policy leaves no module', async () => {
    let coverage: EngineCoverage | undefined;
    const run = runOf({ onCoverage: (told) => (coverage = told) });
    await wapitiEngine({ modules: 'sql' }).run({ ...run, excludedPluginIds: ['40018'] });
    expect(run.lines.find((line) => line.startsWith('wapiti -u'))).toContain('--module=-all');
    expect(coverage).toMatchObject({ pages: 3, modules: [] });
  });

  it('refuses the modules that need the internet', () => {
    expect(() => wapitiEngine({ modules: 'xss,ssrf' })).toThrow(/modules ssrf need the internet/);
    expect(() => wapitiEngine({ modules: 'wapp' })).toThrow(/need the internet/);
  });

  it('fails when wapiti is missing, saying how to install it', async () => {
    const engine = wapitiEngine({ command: '/nonexistent/wapiti' });
    expect(await engine.version()).toBeUndefined();
    await expect(engine.run(runOf())).rejects.toThrow(/could not start.*apt-get install -y wapiti/);
  });

  it('fails when the target answers nothing, rather than reporting a clean scan of nothing', async () => {
    const error = await wapitiEngine({ maxAttackSeconds: 5 })
      .run(runOf({ targetUrl: 'http://127.0.0.1:9/' }))
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as Error).message).toMatch(/found no page to attack at http:\/\/127\.0\.0\.1:9\//);
  });

  it('fails when wapiti gives up without crawling, with its last lines', async () => {
    const error = await wapitiEngine()
      .run(runOf({ targetUrl: 'not a url' }))
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as Error).message).toMatch(/wapiti (exited with \d+|did not crawl not a url); its last lines: ./);
  });

  it('stops at once on a stop (SIGTERM, not the prompt SIGINT opens) and sends nothing more', async () => {
    target.delayMs = 400;
    try {
      const abort = new AbortController();
      const run = runOf({ signal: abort.signal });
      const before = target.requests.length;
      const running = wapitiEngine({ maxAttackSeconds: 60 }).run(run);
      while (target.requests.slice(before).filter((line) => line.includes('/search?q=')).length < 3) await sleep(200);
      const stoppedAt = Date.now();
      abort.abort();
      await expect(running).rejects.toBeInstanceOf(EngineStopped);
      expect(Date.now() - stoppedAt).toBeLessThan(7000);
      expect(run.lines.join('\n')).toMatch(/wapiti: stopped: SIGTERM/);
      const sent = target.requests.length;
      await sleep(2000);
      expect(target.requests.length - sent).toBeLessThanOrEqual(1);
    } finally {
      target.delayMs = 0;
    }
  });

  it('ends at the deadline as an error', async () => {
    // Every attack request waits 5 s (under wapiti's 6 s timeout): the attacks outlast the deadline, however few
    // pages a busy machine lets the crawl reach.
    target.attackDelayMs = 5000;
    try {
      const started = Date.now();
      const error = await wapitiEngine({ maxAttackSeconds: 60 })
        .run(runOf({ deadline: Date.now() + 16_000 }))
        .catch((e: Error) => e);
      expect(error).toBeInstanceOf(EngineError);
      expect((error as Error).message).toMatch(/did not finish before the scan deadline/);
      expect(Date.now() - started).toBeLessThan(16_000 + 7000);
    } finally {
      target.attackDelayMs = 0;
    }
  });
});
