// Reading JSON values of imported reports: every lookup an own property (a report's keys are data: `__proto__` or
// `constructor` are ordinary names), every value a string when a string is expected.

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  !!value && typeof value === 'object' && !Array.isArray(value);

/** The value of an own property, else undefined. */
export const own = (node: unknown, key: string): unknown =>
  isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;

/** A value as text: strings as they are, numbers and booleans written out, anything else ''. */
export function str(node: unknown, key: string): string {
  const value = own(node, key);
  return typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : '';
}

/** The first of `keys` that has a text value ('' when none). */
export const firstStr = (node: unknown, ...keys: string[]) => {
  for (const key of keys) {
    const value = str(node, key);
    if (value) return value;
  }
  return '';
};

/** A list of texts from a list, a comma-separated or YAML-style list in a string ("- a\n- b"), or nothing. */
export function strings(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string' || typeof v === 'number').map(String);
  if (typeof value !== 'string') return [];
  return value
    .split(/\r?\n|,/)
    .map((line) => line.replace(/^\s*-\s*/, '').trim())
    .filter(Boolean);
}

/** JSON.parse's complaint with its position as a line and column of `text`, when it names one. */
export function jsonError(error: unknown, text: string): string {
  const message = (error as Error).message;
  const at = /at position (\d+)/.exec(message);
  if (!at) return message;
  const offset = Number(at[1]);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}: ${message.replace(/ in JSON at position \d+.*$/, '').replace(/\s*\(line \d+ column \d+\)$/, '')}`;
}
