import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { benchTenant, type BenchSection } from './harness.ts';
import { descriptionWithPaths, fullFindingsReport, hostileBodies } from './hostile-bodies.ts';
import { DESCRIPTION_LIMITS, SCAN_CONFIG_LIMITS } from '../../shared/limits.ts';

// Hostile input (issue 11): for the worst body each parsing operation accepts (and a few it now refuses), the
// parse time and peak RSS, each case in a process of its own (scripts/bench/hostile-case.ts); then the same
// worst bodies end to end over HTTP (storage included), with the server process's RSS growth.

const section: BenchSection = {
  name: 'hostile',
  async run(ctx) {
    const parsing: Record<string, unknown> = {};
    for (const [name, body] of Object.entries(hostileBodies)) {
      ctx.progress(`hostile: ${name}`);
      const out = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/bench/hostile-case.ts', name], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      });
      parsing[name] = { about: body.about, ...JSON.parse(out.trim().split('\n').pop()!) };
    }

    const { orgId, token } = await benchTenant(ctx, 'hostile');
    const call = async (method: string, path: string, body: string, contentType = 'application/json') => {
      const rssBefore = process.memoryUsage().rss;
      const started = performance.now();
      const response = await fetch(`${ctx.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
        body,
      });
      const text = await response.text();
      const ms = Math.round(performance.now() - started);
      return {
        status: response.status,
        ms,
        rssGrowthMb: Math.round((process.memoryUsage().rss - rssBefore) / 1e6),
        bytes: body.length,
        ...(response.status >= 400 ? { message: text.slice(0, 160) } : {}),
      };
    };
    const app = JSON.parse(
      await (
        await fetch(`${ctx.baseUrl}/api/v1/org/${orgId}/app`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'hostile', env: 'dev' }),
        })
      ).text(),
    ) as { applicationId: string };
    const config = Array.from({ length: SCAN_CONFIG_LIMITS.maxNodes / 2 - 10 }, (_, i) => `k${i}: v`).join('\n');
    const start = await call('POST', `/api/v1/app/${app.applicationId}/scan`, JSON.stringify({ env: 'dev', config }));
    const scan = JSON.parse(
      await (
        await fetch(`${ctx.baseUrl}/api/v1/app/${app.applicationId}/scan`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ env: 'dev', config: 'app:\n  env: dev\n' }),
        })
      ).text(),
    ) as { scanId: string };
    const http = {
      scanStartMostKeys: start,
      findingsReportFull: await call('POST', `/api/v1/scan/${scan.scanId}/alerts`, fullFindingsReport()),
      descriptionMostPaths: await call(
        'POST',
        `/api/v1/oas/${app.applicationId}/upload`,
        descriptionWithPaths(Math.floor(DESCRIPTION_LIMITS.maxExpandedNodes / 6.2)),
      ),
    };
    return { note: 'one run on a shared, busy 2-core machine: rough figures', parsing, http };
  },
};
export default section;
