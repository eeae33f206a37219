import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The dashboard told people to run `npx hawk-scanner agent`, an unpublished package name (npx
// would run whatever someone later registers under it), and `npm run synth`, documented as offline, sent CDK CLI
// telemetry.

const ROOT = new URL('../..', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(tsx?|html)$/.test(entry.name))
    .map((entry) => join(entry.parentPath.slice(ROOT.length), entry.name));
}

describe('supply chain and privacy', () => {
  it('turns the CDK CLI telemetry off in cdk.json and in the scripts that run the CLI', () => {
    expect(JSON.parse(read('cdk.json')).context['cli-telemetry']).toBe(false);
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    const cdkScripts = Object.entries(scripts).filter(([, command]) => /\bcdk\b/.test(command));
    expect(cdkScripts.map(([name]) => name).sort()).toEqual(['deploy', 'synth']);
    for (const [, command] of cdkScripts) expect(command).toMatch(/^CDK_DISABLE_CLI_TELEMETRY=true cdk /);
    expect(read('scripts/upgrade.ts')).toContain("CDK_DISABLE_CLI_TELEMETRY: 'true'");
  });

  it('never tells anyone to run the scanner through npx: the agents page runs it from the checkout', () => {
    const offending = filesUnder('web/src').filter((file) => /npx\s+(-\S+\s+)*hawk-scanner/.test(read(file)));
    expect(offending).toEqual([]);
    expect(read('web/src/pages/Devices.tsx')).toContain('npm run --silent scanner -- agent --org ${orgId}');
    expect(read('package.json')).toContain('"scanner": "hawk-scanner"');
  });
});
