import { performance } from 'node:perf_hooks';
import type { BenchSection } from './harness.ts';
import { hostedShop } from './hosted.ts';

// Retests (docs/HOSTED-SCANS.md, Retests): a retest's time from its request (retestFinding) to its outcome
// (getRetest reading STILL_PRESENT or FIXED), on the bench's shop, with the command line's agent in a process of
// its own waiting in its long poll (goal: under 10 s). The finding comes from a hosted scan of the shop; the shop is
// unchanged, so each retest must read STILL_PRESENT (a FIXED or an ERROR fails the bench).
const RETEST_RUNS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sleep = (wait: number) => new Promise((resolve) => setTimeout(resolve, wait));

const section: BenchSection = {
  name: 'retest',
  async run(ctx) {
    const { call, app, close } = await hostedShop(ctx, 'retest');
    try {
      ctx.progress('a hosted scan of the shop, for a finding to retest');
      await call('POST', `/api/v1/app/${app}/perch/start`, { command: { command: 'START' }, env: 'bench' });
      let device;
      do {
        await sleep(200);
        device = (await call('GET', `/api/v1/app/${app}/perch/status`)).device;
      } while (device.status === 'RUNNING');
      if (device.status !== 'HOSTED_SCANNER_DISCONNECTED')
        throw new Error(`the scan failed: ${JSON.stringify(device)}`);
      const alerts = await call('GET', `/api/v1/scan/${device.scanId}/alerts?pageSize=100`);
      const alert = (alerts.applicationScanResults[0].applicationAlerts as { pluginId: string }[]).find((a) =>
        /^wapiti\.(sql-injection|cross-site-scripting|command-execution|path-traversal)$/.test(a.pluginId),
      );
      if (!alert) throw new Error('the hosted scan of the shop found no injection to retest');
      const uris = await call('GET', `/api/v1/scan/${device.scanId}/alert/${alert.pluginId}?pageSize=1`);
      const finding = uris.applicationScanAlertUris[0] as { findingHash: string; uri: string; requestMethod: string };

      ctx.progress(`${RETEST_RUNS} retests of ${alert.pluginId} at ${finding.requestMethod} ${finding.uri}`);
      const times: number[] = [];
      for (let i = 0; i < RETEST_RUNS; i++) {
        await sleep(500); // the agent is back in its long poll
        const t0 = performance.now();
        const { retestId } = await call('POST', `/api/v1/app/${app}/findings/${finding.findingHash}/retest?env=bench`);
        let retest;
        do {
          await sleep(50);
          retest = await call('GET', `/api/v1/app/${app}/retests/${retestId}`);
        } while (retest.status === 'QUEUED' || retest.status === 'RUNNING');
        times.push(performance.now() - t0);
        if (retest.status !== 'STILL_PRESENT') throw new Error(`retest ${i + 1}: ${JSON.stringify(retest)}`);
      }
      return {
        retest: {
          finding: `${alert.pluginId} ${finding.requestMethod} ${finding.uri}`,
          runs: RETEST_RUNS,
          'request to outcome (p50 s)': Math.round(median(times) / 100) / 10,
          'the slowest (s)': Math.round(Math.max(...times) / 100) / 10,
          goal: 'under 10 s',
        },
      };
    } finally {
      await close();
    }
  },
};

export default section;
