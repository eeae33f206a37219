import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { benchTenant, type BenchSection, type BenchContext } from './harness.ts';
import { descriptionWithPaths, fullFindingsReport, hostileBodies } from './hostile-bodies.ts';
import { DESCRIPTION_LIMITS, IMPORT_LIMITS, MAX_LIST_FILTER_VALUES, SCAN_CONFIG_LIMITS } from '../../shared/limits.ts';
import { MAX_CONFIGURATION_BYTES } from '../../shared/scan-configurations/model.ts';

// Hostile input (docs/COMPATIBILITY.md, Limits): for the worst body each parsing operation accepts (and a few it now
// refuses), the parse time and peak RSS, each case in a process of its own (scripts/bench/hostile-case.ts); then the
// same worst bodies end to end over HTTP (storage included), with the server process's RSS growth.

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
    return {
      note: 'one run on a shared, busy 2-core machine: rough figures',
      parsing,
      http,
      ...(await worstAccepted(ctx, token, orgId)),
    };
  },
};
export default section;

/**
 * The worst bodies the attack run used, at the largest size each operation accepts, over HTTP: the time to the answer
 * and the answer's size (which must stay far below Lambda's 6 MB), for the import (50,000 variants of one plugin id,
 * refused at the alert limit; 40,000 results it skips), validate (the most unknown keys a body holds) and each list
 * filter at its bound.
 */
async function worstAccepted(ctx: BenchContext, token: string, orgId: string) {
  const send = async (method: string, path: string, body?: string, contentType = 'application/json') => {
    const started = performance.now();
    const response = await fetch(`${ctx.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': contentType } : {}) },
      body,
    });
    const answer = await response.text();
    return {
      status: response.status,
      ms: Math.round(performance.now() - started),
      requestBytes: body?.length ?? path.length,
      answerBytes: answer.length,
    };
  };
  const created = await fetch(`${ctx.baseUrl}/api/v1/org/${orgId}/app`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'hostile worst', env: 'dev' }),
  });
  const { applicationId } = (await created.json()) as { applicationId: string };

  ctx.progress('hostile: import worst bodies');
  const variant = (i: number) =>
    `{"pluginid":"10038","name":"v${i}","riskcode":"2","instances":[{"uri":"http://a.test/"}]}`;
  let variants = '';
  for (let i = 0; variants.length < IMPORT_LIMITS.maxBytes - 200; i++) variants += `${i ? ',' : ''}${variant(i)}`;
  const sameId = `{"@version":"2.16.0","site":[{"@name":"http://a.test","alerts":[${variants}]}]}`;
  const located = '{"ruleId":"10038","level":"warning","locations":[]}';
  const results = Array.from(
    { length: Math.floor((IMPORT_LIMITS.maxBytes - 300) / (located.length + 1)) },
    () => located,
  );
  const skipped = `{"runs":[{"tool":{"driver":{"name":"ZAP","rules":[{"id":"10038","name":"CSP"}]}},"results":[${results.join(',')}]}]}`;
  const importPath = `/api/v1/app/${applicationId}/scan/import?env=worst`;
  const importFigures = {
    variantsOfOnePluginId: {
      alerts: sameId.split('"pluginid"').length - 1,
      ...(await send('POST', importPath, sameId)),
    },
    skippedResults: { results: results.length, ...(await send('POST', importPath, skipped)) },
  };

  ctx.progress('hostile: validate worst body');
  const head = `app:\n  applicationId: ${applicationId}\n  env: dev\n  host: http://a.test\n`;
  const lines: string[] = [];
  for (let i = 0, size = head.length + 40; size + `  k${i}: v\n`.length < MAX_CONFIGURATION_BYTES; i++) {
    lines.push(`  k${i}: v`);
    size += lines[i].length + 1;
  }
  const validate = {
    unknownKeys: lines.length,
    ...(await send(
      'POST',
      `/api/v1/configuration/${orgId}/validate`,
      JSON.stringify({ conf: head + lines.join('\n') }),
    )),
  };

  ctx.progress('hostile: list filters at their bound');
  const names = Array.from({ length: MAX_LIST_FILTER_VALUES }, (_, i) => `env-${i}`).join(',');
  const ids = Array.from({ length: MAX_LIST_FILTER_VALUES }, () => crypto.randomUUID()).join(',');
  const filters: Record<string, unknown> = {};
  for (const [name, path] of [
    ['findingsReport envs', `/api/v1/reports/org/${orgId}/findings?envs=${names}`],
    ['findingsReport appIds', `/api/v1/reports/org/${orgId}/findings?appIds=${ids}`],
    ['listEnvironmentsV2 envs', `/api/v2/org/${orgId}/envs?envs=${names}`],
    ['listEnvironmentsV2 appIds', `/api/v2/org/${orgId}/envs?appIds=${ids}`],
    ['listApplicationsV2 appIds', `/api/v2/org/${orgId}/apps?appIds=${ids}`],
    ['listApplications (v1) envs', `/api/v1/app/${orgId}/list?envs=${names}`],
    ['listScans envs', `/api/v1/scan/${orgId}?envs=${names}`],
    ['listScans appIds', `/api/v1/scan/${orgId}?appIds=${ids}`],
  ] as const)
    filters[name] = await send('GET', path);
  return { worstAccepted: { import: importFigures, validate, listFilters: filters } };
}
