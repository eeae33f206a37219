import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

// No import cycles in shared/ (nor in what builds on it: functions/, infra/, scanner/src/, scripts/ and the dashboard's
// web/src/): a module's records and pure functions sit below the modules that store and read them
// (shared/applications/model.ts, shared/results/model.ts), so each layer builds on the ones under it. Type-only
// imports count too: a cycle through types still says a record lives in the wrong module.

const root = new URL('../..', import.meta.url).pathname;

async function cyclesUnder(folders: string[], baseDir = root): Promise<string[]> {
  const result = await cruise(
    folders,
    {
      baseDir,
      validate: true,
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      ruleSet: { forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } }] },
    },
    {},
    {},
  );
  const output = result.output as ICruiseResult;
  return output.summary.violations.map(
    (violation) => `${violation.from} -> ${(violation.cycle ?? []).map((step) => step.name).join(' -> ')}`,
  );
}

describe('imports', () => {
  it('form no cycle in shared/, functions/, infra/, scanner/src/, scripts/ or web/src/', async () => {
    expect(await cyclesUnder(['shared', 'functions', 'infra', 'scanner/src', 'scripts', 'web/src'])).toEqual([]);
  });

  it('are seen as a cycle when there is one, type-only imports included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-cycle-'));
    try {
      writeFileSync(
        join(dir, 'record.ts'),
        "import type { Store } from './store.ts';\nexport type Record = { store: Store };\n",
      );
      writeFileSync(
        join(dir, 'store.ts'),
        "import type { Record } from './record.ts';\nexport type Store = Record[];\n",
      );
      writeFileSync(
        join(dir, 'leaf.ts'),
        "import type { Store } from './store.ts';\nexport const empty: Store = [];\n",
      );
      const cycles = await cyclesUnder(['.'], dir);
      expect(cycles.length).toBeGreaterThan(0);
      for (const cycle of cycles)
        expect(cycle).toMatch(/^(record|store)\.ts -> (record|store)\.ts -> (record|store)\.ts$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
