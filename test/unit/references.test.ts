import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// References a reader can follow: code, tests and docs cite an operationId or a section of a doc in docs/, never
// documents that do not ship with the repository (the specification, the issue tracker).

const root = join(import.meta.dirname, '../..');
const FOLDERS = ['shared', 'functions', 'scanner/src', 'web/src', 'docs', 'infra', 'scripts', 'test', '.ci'];
const TOP_FILES = ['README.md', 'scanner/README.md'];
const TEXT = /\.(ts|tsx|js|mjs|cjs|md|css|html|sh|ya?ml)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'cdk.out', '.data', 'screenshots']);

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : filesUnder(path);
    return entry.isFile() && (TEXT.test(entry.name) || !entry.name.includes('.')) ? [path] : [];
  });
}

const files = [
  ...FOLDERS.flatMap((folder) => filesUnder(join(root, folder))),
  ...TOP_FILES.map((file) => join(root, file)).filter((file) => existsSync(file) && statSync(file).isFile()),
];

/** Every match of `pattern` in the scanned files, as `path:line: text`. */
function occurrences(pattern: RegExp): { where: string; match: RegExpExecArray }[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) =>
        [
          ...line.matchAll(
            new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g'),
          ),
        ].map((match) => ({ where: `${relative(root, file)}:${index + 1}: ${line.trim()}`, match })),
      ),
  );
}

/** The headings of a doc, without their `#`s and a closing parenthesis: `Health aggregates (includeAppHealthStats)`. */
const headingsOf = (doc: string) =>
  readFileSync(join(root, 'docs', doc), 'utf8')
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) =>
      line
        .replace(/^#+ /, '')
        .replace(/\s*\([^)]*\)\s*$/, '')
        .trim(),
    );

/**
 * Whether `text` (what follows `docs/<doc>.md, `) names a heading of the doc: it starts with the heading
 * (`Findings, Unpublished writes`), or the words before its first punctuation begin one (`Overrides` of
 * `Overrides per application and environment`).
 */
function namesHeading(headings: string[], text: string): boolean {
  const phrase = text.split(/[)":;.,]/)[0]!.trim();
  return headings.some((heading) => text.startsWith(heading) || (phrase.length >= 4 && heading.startsWith(phrase)));
}

describe('references', () => {
  it('scans the source folders', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files.some((file) => file.endsWith('shared/routes.ts'))).toBe(true);
  });

  it('cite no specification section or issue number', () => {
    const specification = occurrences(/\bSPEC\b/);
    const issues = occurrences(/\bissues?\s*#?\s*\d+/i);
    expect([...specification, ...issues].map((o) => o.where)).toEqual([]);
  });

  it('name docs that exist', () => {
    const missing = occurrences(/\bdocs\/([A-Z][A-Z0-9_-]*\.md)/).filter(
      ({ match }) => !existsSync(join(root, 'docs', match[1]!)),
    );
    expect(missing.map((o) => o.where)).toEqual([]);
  });

  // `docs/<doc>.md, Section` and `docs/<doc>.md "Section"`: the text after the doc starts with one of its headings.
  it('name sections that exist', () => {
    const cited = occurrences(/\bdocs\/([A-Z][A-Z0-9_-]*\.md)(?:, "?|,? ")([A-Z][^\n]*)/).filter(({ match }) =>
      existsSync(join(root, 'docs', match[1]!)),
    );
    expect(cited.length).toBeGreaterThan(50);
    const unknown = cited.filter(({ match }) => {
      const [, doc, text] = match as unknown as [string, string, string];
      return !namesHeading(headingsOf(doc), text);
    });
    expect(unknown.map((o) => o.where)).toEqual([]);
  });
});
