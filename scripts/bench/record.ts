import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';

// Where `npm run bench` keeps its figures: one file per run in bench-results/runs/ (its commit, the machine and
// the sections it ran; never rewritten, so a regression shows as a new file and a diff against an older one), and
// bench-results/latest.json/.md, the newest figures of every section with the run each came from.
export const RESULTS_DIR = 'bench-results';

export interface RunSource {
  /** The commit the code was at, and whether the working tree had uncommitted changes (figures of dirty trees are not reproducible from the commit alone). */
  commit: string;
  dirty: boolean;
  subject: string;
}

export interface Machine {
  node: string;
  platform: string;
  cpuModel: string;
  cpus: number;
  memoryGiB: number;
  /** 1-minute load average when the run started: other work on a shared machine makes figures noisy. */
  loadAverageAtStart: number;
}

export interface Run {
  date: string;
  source: RunSource;
  machine: Machine;
  /** The sections this run measured, each as its section returned it. */
  sections: Record<string, Record<string, unknown>>;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

export function runSource(): RunSource {
  const status = git(['status', '--porcelain', '--untracked-files=no']);
  // The results themselves change on every run: they do not make the code dirty.
  const dirty = status.split('\n').some((line) => line.trim() && !line.slice(3).startsWith(`${RESULTS_DIR}/`));
  return { commit: git(['rev-parse', 'HEAD']) || 'unknown', dirty, subject: git(['log', '-1', '--format=%s']) };
}

export function machine(): Machine {
  const cores = cpus();
  return {
    node: process.version,
    platform: `${platform()} ${release()} ${arch()}`,
    cpuModel: cores[0]?.model.trim() ?? 'unknown',
    cpus: cores.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverageAtStart: Math.round(loadavg()[0] * 100) / 100,
  };
}

/** bench-results/runs/<date>-<commit>.json: the file name sorts by time. */
export function runFileName(run: Run): string {
  const stamp = run.date.replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  return `${stamp}-${run.source.commit.slice(0, 10)}${run.source.dirty ? '-dirty' : ''}.json`;
}

export function readRuns(dir = RESULTS_DIR): { file: string; run: Run }[] {
  const runsDir = join(dir, 'runs');
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ file, run: JSON.parse(readFileSync(join(runsDir, file), 'utf8')) as Run }));
}

export interface LatestSection {
  /** The run file (in bench-results/runs/) these figures come from. */
  run: string;
  ranAt: string;
  commit: string;
  dirty: boolean;
  figures: Record<string, unknown>;
}

/** Writes the run's own file (returns its path), then latest.json and latest.md: each section's newest figures and the run before. */
export function recordRun(run: Run, dir = RESULTS_DIR): string {
  mkdirSync(join(dir, 'runs'), { recursive: true });
  const file = runFileName(run);
  writeFileSync(join(dir, 'runs', file), JSON.stringify(run, null, 2) + '\n');
  writeLatest(dir);
  return join(dir, 'runs', file);
}

/**
 * latest.json and latest.md from the run files alone, so they never need merging by hand: after two branches each
 * added a run, `npm run bench -- --rebuild-latest` writes what either branch would have written with both runs.
 */
export function writeLatest(dir = RESULTS_DIR): void {
  const runs = readRuns(dir);
  const newest = runs.at(-1)?.run;
  if (!newest) throw new Error(`no run files in ${join(dir, 'runs')}: run \`npm run bench\` first`);
  const latest: Record<string, LatestSection> = {};
  const previous: Record<string, LatestSection> = {};
  for (const { file: name, run: earlier } of runs) {
    for (const [section, { ranAt, ...figures }] of Object.entries(earlier.sections)) {
      if (latest[section]) previous[section] = latest[section];
      latest[section] = {
        run: name,
        ranAt: String(ranAt ?? earlier.date),
        commit: earlier.source.commit,
        dirty: earlier.source.dirty,
        figures,
      };
    }
  }
  writeFileSync(
    join(dir, 'latest.json'),
    JSON.stringify({ date: newest.date, machine: newest.machine, sections: latest }, null, 2) + '\n',
  );
  writeFileSync(join(dir, 'latest.md'), renderMarkdown(newest, latest, previous));
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value);

/** A figures object as rows of dotted paths, in the section's own order; an object of plain values (a timing: n, p50Ms, ...) stays one row. */
export function flatten(value: unknown, path = ''): [string, unknown][] {
  if (isObject(value) && Object.values(value).some(isObject)) {
    return Object.entries(value).flatMap(([key, inner]) => flatten(inner, path ? `${path}.${key}` : key));
  }
  return [[path, value]];
}

const text = (value: unknown): string =>
  value === undefined
    ? ''
    : typeof value === 'string'
      ? value
      : isObject(value)
        ? Object.entries(value)
            .map(([k, v]) => `${k} ${text(v)}`)
            .join(', ')
        : JSON.stringify(value);
const cell = (value: unknown) => text(value).replace(/\|/g, '\\|').replace(/\n/g, ' ');

function renderMarkdown(
  run: Run,
  latest: Record<string, LatestSection>,
  previous: Record<string, LatestSection>,
): string {
  const lines = [
    '# npm run bench: latest figures',
    '',
    `Written ${run.date} on ${run.machine.cpus} × ${run.machine.cpuModel}, ${run.machine.memoryGiB} GiB, Node ${run.machine.node}. ` +
      'Every run is kept in `runs/`; each section below names the run it comes from and compares with the run of that section before it.',
    '',
  ];
  for (const [section, current] of Object.entries(latest)) {
    const before = previous[section];
    const earlier = new Map(before ? flatten(before.figures) : []);
    lines.push(
      `## ${section}`,
      '',
      `Run \`runs/${current.run}\` (commit ${current.commit.slice(0, 10)}${current.dirty ? ', uncommitted changes' : ''}, ${current.ranAt})` +
        (before ? `; previous: \`runs/${before.run}\` (commit ${before.commit.slice(0, 10)}).` : '.'),
      '',
    );
    lines.push(
      before ? '| figure | value | previous run |' : '| figure | value |',
      before ? '|---|---|---|' : '|---|---|',
    );
    for (const [path, value] of flatten(current.figures)) {
      lines.push(
        before
          ? `| ${cell(path)} | ${cell(value)} | ${cell(earlier.get(path))} |`
          : `| ${cell(path)} | ${cell(value)} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}
