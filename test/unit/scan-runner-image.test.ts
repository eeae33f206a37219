import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RUNNER_ZAP, runnerImage } from '../../infra/scan-runner.ts';

// The hosted runner's image (docs/HOSTED-SCANS.md, Where scans run): wapiti alone by default; OWASP ZAP added by a
// build argument with its archive's pinned SHA-256, and the agent's engine chosen by another.

const dockerfile = readFileSync(new URL('../../scanner/Dockerfile', import.meta.url), 'utf8');

describe("the hosted runner's image", () => {
  it('holds wapiti alone by default, in 2 GiB', () => {
    expect(runnerImage(undefined, undefined)).toEqual({ buildArgs: {}, memoryLimitMiB: 2048 });
    expect(runnerImage('false', 'wapiti')).toEqual({ buildArgs: { HAWK_ENGINE: 'wapiti' }, memoryLimitMiB: 2048 });
  });

  it('adds ZAP pinned by its SHA-256 with scanRunnerZap=true, in 4 GiB, and can run only ZAP', () => {
    expect(RUNNER_ZAP.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(runnerImage('true', undefined)).toEqual({
      buildArgs: { ZAP_VERSION: RUNNER_ZAP.version, ZAP_SHA256: RUNNER_ZAP.sha256 },
      memoryLimitMiB: 4096,
    });
    expect(runnerImage(true, 'zap').buildArgs).toMatchObject({ HAWK_ENGINE: 'zap' });
  });

  it('refuses a choice it cannot build, naming the context value', () => {
    expect(() => runnerImage(undefined, 'zap')).toThrow(/scanRunnerEngine=zap needs scanRunnerZap=true/);
    expect(() => runnerImage('yes', undefined)).toThrow(/scanRunnerZap must be true or false/);
    expect(() => runnerImage(undefined, 'nuclei')).toThrow(/scanRunnerEngine must be wapiti or zap/);
  });

  it('takes those build arguments: the archive checked against the SHA-256 before it is unpacked, the engine as HAWK_ENGINE', () => {
    for (const arg of ['ZAP_VERSION', 'ZAP_SHA256', 'HAWK_ENGINE']) expect(dockerfile).toContain(`ARG ${arg}=`);
    const check = dockerfile.indexOf('sha256sum -c');
    expect(check).toBeGreaterThan(0);
    expect(dockerfile.indexOf('tar -xzf /tmp/zap.tar.gz')).toBeGreaterThan(check);
    expect(dockerfile).toMatch(/ENV [^\n]*HAWK_ENGINE=\$\{HAWK_ENGINE\}/);
    expect(dockerfile).toMatch(/apt-get install[^\n]* wapiti/);
  });
});
