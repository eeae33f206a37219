import { describe, expect, it } from 'vitest';
import { DocumentRejected, documentValue, parseBoundedYaml } from '../../shared/input/documents.ts';
import { SCAN_CONFIG_LIMITS } from '../../shared/limits.ts';

const parse = (text: string) => {
  const document = parseBoundedYaml(text, SCAN_CONFIG_LIMITS);
  expect(document.errors).toEqual([]);
  return documentValue(document, SCAN_CONFIG_LIMITS);
};
const rejection = (text: string) => {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(DocumentRejected);
    return error as DocumentRejected;
  }
  throw new Error('accepted');
};

describe('bounded YAML documents', () => {
  it('parses ordinary configurations, aliases included', () => {
    expect(parse('app:\n  env: dev\n  hosts: [a, b]\nbase: &b {x: 1}\nother: *b\n')).toEqual({
      app: { env: 'dev', hosts: ['a', 'b'] },
      base: { x: 1 },
      other: { x: 1 },
    });
  });

  it('refuses duplicate keys in one linear pass, naming the key', () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `k${i}: v`).join('\n');
    expect(rejection(`${keys}\nk19999: again\n`).message).toBe(
      'duplicate key "k19999" (keys of a mapping must be unique)',
    );
    expect(parse('a: {x: 1}\nb: {x: 1}\n')).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });

  it('refuses deep nesting from the token stream, before building a tree', () => {
    expect(rejection('['.repeat(1_000_000)).message).toBe(`nested deeper than ${SCAN_CONFIG_LIMITS.maxDepth} levels`);
    expect(rejection(`${'- '.repeat(300)}x`).message).toMatch(/nested deeper/);
    const indented = Array.from({ length: 70 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' x';
    expect(rejection(indented).message).toMatch(/nested deeper/);
    expect(parse(`${'['.repeat(60)}1${']'.repeat(60)}`)).toBeDefined();
  });

  it('refuses too many values with a 413 and too many or too expansive aliases with a 400', () => {
    const many = rejection(Array.from({ length: 30_000 }, (_, i) => `k${i}: v`).join('\n'));
    expect([many.statusCode, many.message]).toEqual([413, `more than ${SCAN_CONFIG_LIMITS.maxNodes} values (nodes)`]);
    const aliases = rejection(`a: &a x\nb: [${Array.from({ length: 101 }, () => '*a').join(', ')}]\n`);
    expect([aliases.statusCode, aliases.message]).toEqual([400, `more than ${SCAN_CONFIG_LIMITS.maxAliases} aliases`]);
    // Nested anchors ("billion laughs"): few aliases, each doubling the expansion.
    const levels = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++)
      levels.push(
        `l${i}: &l${i} [*l${i - 1}, *l${i - 1}, *l${i - 1}, *l${i - 1}, *l${i - 1}, *l${i - 1}, *l${i - 1}, *l${i - 1}, *l${i - 1}, *l${i - 1}]`,
      );
    const laughs = rejection(levels.join('\n'));
    expect([laughs.statusCode, laughs.message]).toEqual([400, expect.stringMatching(/aliases|alias count/)]);
  });

  it('refuses a document over the byte limit before reading it', () => {
    const big = rejection(`x: "${'a'.repeat(SCAN_CONFIG_LIMITS.maxBytes)}"`);
    expect(big.statusCode).toBe(413);
  });
});
