import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { flatten, recordRun, runFileName, writeLatest, type Run } from '../../scripts/bench/record.ts';

// The bench's history (bench-results/runs/): every run keeps its own file; latest.json/.md show each section's
// newest figures, named by the run they come from, beside the run of that section before.
const machine = {
  node: 'v22.0.0',
  platform: 'linux',
  cpuModel: 'Test CPU',
  cpus: 2,
  memoryGiB: 24,
  loadAverageAtStart: 0.5,
};
const run = (date: string, commit: string, sections: Run['sections'], dirty = false): Run => ({
  date,
  source: { commit, dirty, subject: 's' },
  machine,
  sections,
});

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-record-'));
  dirs.push(dir);
  return dir;
};

describe('bench run history', () => {
  it('names a run file by its date and commit, sortable by time, marking uncommitted changes', () => {
    expect(runFileName(run('2026-11-25T01:02:03.456Z', 'abcdef0123456789', {}))).toBe(
      '2026-11-25T01-02-03Z-abcdef0123.json',
    );
    expect(runFileName(run('2026-11-25T01:02:03.456Z', 'abcdef0123456789', {}, true))).toBe(
      '2026-11-25T01-02-03Z-abcdef0123-dirty.json',
    );
  });

  it('keeps every run and shows each section from its newest run, beside the one before', () => {
    const dir = tempDir();
    recordRun(
      run('2026-11-01T00:00:00.000Z', 'aaaaaaaaaa11', {
        foundation: { ranAt: 'r1', ratios: { read: 3 } },
        lists: { ranAt: 'r1', page: { p50Ms: 12 } },
      }),
      dir,
    );
    const second = recordRun(
      run('2026-11-02T00:00:00.000Z', 'bbbbbbbbbb22', { foundation: { ranAt: 'r2', ratios: { read: 1.5 } } }),
      dir,
    );

    expect(readdirSync(join(dir, 'runs')).sort()).toEqual([
      '2026-11-01T00-00-00Z-aaaaaaaaaa.json',
      '2026-11-02T00-00-00Z-bbbbbbbbbb.json',
    ]);
    expect(JSON.parse(readFileSync(second, 'utf8')).sections).toEqual({
      foundation: { ranAt: 'r2', ratios: { read: 1.5 } },
    });

    const latest = JSON.parse(readFileSync(join(dir, 'latest.json'), 'utf8'));
    expect(latest.sections.foundation).toMatchObject({
      run: '2026-11-02T00-00-00Z-bbbbbbbbbb.json',
      commit: 'bbbbbbbbbb22',
      figures: { ratios: { read: 1.5 } },
    });
    // A section this run did not measure keeps its figures from the run that did.
    expect(latest.sections.lists).toMatchObject({
      run: '2026-11-01T00-00-00Z-aaaaaaaaaa.json',
      figures: { page: { p50Ms: 12 } },
    });

    const markdown = readFileSync(join(dir, 'latest.md'), 'utf8');
    expect(markdown).toContain('| ratios | read 1.5 | read 3 |');
    expect(markdown).toContain('| page | p50Ms 12 |');
  });

  it('rebuilds latest.json/.md from the run files alone, as recording the newest run wrote them', () => {
    const dir = tempDir();
    recordRun(
      run('2026-11-01T00:00:00.000Z', 'aaaaaaaaaa11', { foundation: { ranAt: 'r1', ratios: { read: 3 } } }),
      dir,
    );
    recordRun(run('2026-11-03T00:00:00.000Z', 'cccccccccc33', { lists: { ranAt: 'r3', page: { p50Ms: 9 } } }), dir);
    const [json, markdown] = ['latest.json', 'latest.md'].map((name) => readFileSync(join(dir, name), 'utf8'));
    // As after a merge: a run recorded on another branch arrives without its latest files.
    recordRun(
      run('2026-11-02T00:00:00.000Z', 'bbbbbbbbbb22', { foundation: { ranAt: 'r2', ratios: { read: 2 } } }),
      dir,
    );
    writeLatest(dir);
    const latest = JSON.parse(readFileSync(join(dir, 'latest.json'), 'utf8'));
    expect(latest.date).toBe('2026-11-03T00:00:00.000Z');
    expect(latest.sections.foundation).toMatchObject({ commit: 'bbbbbbbbbb22', figures: { ratios: { read: 2 } } });
    expect(readFileSync(join(dir, 'latest.md'), 'utf8')).toContain('| ratios | read 2 | read 3 |');
    expect(JSON.parse(json).sections.foundation.figures).toEqual({ ratios: { read: 3 } });
    expect(markdown).not.toContain('read 2');
    expect(() => writeLatest(tempDir())).toThrow(/no run files/);
  });

  it('flattens nested figures to dotted rows, keeping an object of plain values as one row', () => {
    expect(flatten({ a: { b: { n: 1, p50Ms: 2 }, c: 3 }, d: [1, 2] })).toEqual([
      ['a.b', { n: 1, p50Ms: 2 }],
      ['a.c', 3],
      ['d', [1, 2]],
    ]);
  });
});
