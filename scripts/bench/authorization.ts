import { performance } from 'node:perf_hooks';
import type { BenchSection } from './harness.ts';
import { BENCH_WAPITI_MODULES, hostedShop } from './hosted.ts';
import { formLogin } from './hosted-targets.ts';

// The authorization phase (docs/SCANNER-AUTH.md, Authorization testing) on the bench's shop with two users: a hosted
// scan logged in as alice, whose crawled requests carrying identifiers are then replayed as bob and without a
// session. Its time (from the run log's timestamps) and requests (the coverage record's figures) against the whole
// scan's, and a retest of its BOLA finding from the request to its outcome. The shop's orders answer any
// signed-in user: the scan must report BOLA on them and nothing on the invoices, else the bench fails. Wapiti runs
// the hosted bench's modules (BENCH_WAPITI_MODULES, hosted.ts): the phase replays the crawl, whatever attacks follow
// it, and with every module the shop's scan alone takes tens of minutes here (its first run, with them, never ended
// in the time it was given).

/** A scan still running after this fails the bench with its log (a stalled run tells where it stands). */
const SCAN_LIMIT_MS = 15 * 60_000;

const sleep = (wait: number) => new Promise((resolve) => setTimeout(resolve, wait));

const config = (host: string) => `app:
  env: bench
  host: ${host}
  authentication:
${formLogin('alice', 'alice-pw', 'shopsession', '    ')}hawk:
  authorization:
    users:
      - name: bob
        authentication:
${formLogin('bob', 'bob-pw', 'shopsession', '          ')}`;

/** When the first line of the log matching `pattern` (after its timestamp) was written (epoch ms). */
function at(log: string, pattern: RegExp) {
  const line = log.split('\n').find((l) => pattern.test(l.slice(25)));
  if (!line) throw new Error(`the run log has no line matching ${pattern}:\n${log.slice(-3000)}`);
  return Date.parse(line.slice(0, 24));
}

const section: BenchSection = {
  name: 'authorization',
  async run(ctx) {
    const { call, shop, app, close } = await hostedShop(ctx, 'authorization');
    try {
      ctx.progress('a hosted scan of the shop as alice, with bob in hawk.authorization');
      const startedAt = Date.now();
      const before = await shop.requests();
      const { scanKey } = await call('POST', `/api/v1/app/${app}/perch/start`, {
        // The configuration goes in the command (perch.PerchCommandRequest's command.config): the body's other keys
        // are hawkop's, and one it does not know is dropped, so a configuration beside the command scans logged out.
        command: { command: 'START', config: config(shop.url) },
        env: 'bench',
      });
      let device;
      do {
        await sleep(200);
        device = (await call('GET', `/api/v1/app/${app}/perch/status`)).device;
        if (Date.now() - startedAt > SCAN_LIMIT_MS) {
          const stalled = await call('GET', `/api/v1/app/${app}/perch/log?scanKey=${scanKey}`);
          throw new Error(`the scan still runs after ${SCAN_LIMIT_MS / 1000} s; its log:\n${stalled.log.slice(-6000)}`);
        }
      } while (device.status === 'RUNNING');
      const run = await call('GET', `/api/v1/app/${app}/perch/log?scanKey=${scanKey}`);
      if (device.status !== 'HOSTED_SCANNER_DISCONNECTED' || run.state !== 'COMPLETED')
        throw new Error(`the scan failed: ${JSON.stringify(device)}\n${run.log}`);
      const requests = (await shop.requests()) - before;
      const coverage = await call('GET', `/api/v1/scan/${device.scanId}/coverage`);
      const figures = coverage.authorization;
      if (!/authorization: \d+ findings/.test(run.log))
        throw new Error(`the scan ran no authorization phase:\n${run.log.slice(-4000)}`);
      const alerts = await call('GET', `/api/v1/scan/${device.scanId}/alert/hawk.authz.bola?pageSize=100`);
      const bola = alerts.applicationScanAlertUris as { uri: string; findingHash: string }[];
      const paths = bola.map((f) => new URL(f.uri, shop.url).pathname).sort();
      if (!paths.length || paths.some((p) => !p.startsWith('/api/orders/')))
        throw new Error(`BOLA should be reported on the orders only, got ${JSON.stringify(paths)}\n${run.log}`);
      const phaseStart = at(run.log, /^authorization: \d+ requests of the primary user's crawl/);
      const phaseEnd = at(run.log, /^authorization: \d+ findings/);
      const engineStart = at(run.log, /^wapiti -u /);
      const engineEnd = at(run.log, /^wapiti: \d+ alerts/);
      const replayed = figures.users.reduce((n: number, u: { replayed: number }) => n + u.replayed, 0);

      ctx.progress(`a retest of the BOLA finding at ${bola[0].uri}`);
      await sleep(500); // the agent is back in its long poll
      const t0 = performance.now();
      const { retestId } = await call('POST', `/api/v1/app/${app}/findings/${bola[0].findingHash}/retest?env=bench`);
      let retest;
      do {
        await sleep(50);
        retest = await call('GET', `/api/v1/app/${app}/retests/${retestId}`);
        if (performance.now() - t0 > SCAN_LIMIT_MS) throw new Error(`the retest still runs: ${JSON.stringify(retest)}`);
      } while (retest.status === 'QUEUED' || retest.status === 'RUNNING');
      const retestMs = performance.now() - t0;
      if (retest.status !== 'STILL_PRESENT') throw new Error(`the BOLA retest: ${JSON.stringify(retest)}`);
      return {
        authorization: {
          site: shop.description,
          users: 'alice (primary), bob, and no session',
          engine: `wapiti, modules ${BENCH_WAPITI_MODULES ?? 'all'} (BENCH_WAPITI_MODULES)`,
          'the whole hosted scan, startScan to the end (s)': Math.round((Date.now() - startedAt) / 100) / 10,
          'wapiti run as alice, through the pinning proxy (s)': Math.round((engineEnd - engineStart) / 100) / 10,
          'the authorization phase (s, from the run log)': Math.round((phaseEnd - phaseStart) / 100) / 10,
          'requests the site answered in the whole scan': requests,
          'candidates (alice requests carrying identifiers)': figures.candidates,
          'replayed as bob, without a session': `${replayed}, ${figures.unauthenticatedReplayed}`,
          'phase requests per candidate':
            Math.round(((replayed + figures.unauthenticatedReplayed) / Math.max(1, figures.candidates)) * 10) / 10,
          'BOLA findings (the orders)': paths.length,
          'a BOLA retest, request to outcome STILL_PRESENT (s)': Math.round(retestMs / 100) / 10,
        },
      };
    } finally {
      await close();
    }
  },
};

export default section;
