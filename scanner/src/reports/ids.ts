import { createHash } from 'node:crypto';

// Plugin ids of imported reports (docs/IMPORTS.md, Identity). Every tool but ZAP gets its own prefix (`wapiti.`,
// `nuclei.`...): the finding hash includes the plugin id, so it is stable per tool and never shared between tools.
// A tool's id that does not fit as 1 to 60 letters, digits, `.` or `-` (semgrep's dotted 150-character rule ids,
// ids with `/` or spaces) becomes a short id: what fits of it, cleaned, and 8 hex digits of its SHA-256, the same
// for the same original every time. The caller keeps the original in the alert.

/** What mapAlerts accepts as a plugin id. */
export const PLUGIN_ID = /^[A-Za-z0-9.-]{1,60}$/;
const MAX = 60;

/** `text` as letters, digits, `.` and `-`: accents dropped, every other run of characters one `-`. */
export const slug = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');

/** `<prefix>.<original>` when it fits as it is (`mapped` false), else a stable short id (`mapped` true). */
export function pluginIdOf(prefix: string, original: string): { pluginId: string; mapped: boolean } {
  const plain = `${prefix}.${original}`;
  if (PLUGIN_ID.test(plain)) return { pluginId: plain, mapped: false };
  const hash = createHash('sha256').update(original).digest('hex').slice(0, 8);
  const cleaned = `${prefix}.${slug(original)}`.slice(0, MAX - 9).replace(/[-.]+$/, '');
  return { pluginId: `${cleaned}-${hash}`, mapped: true };
}

/** A plugin id from a name (Wapiti's categories): lower case, spaces and punctuation as `-`. */
export const pluginIdOfName = (prefix: string, name: string) => pluginIdOf(prefix, slug(name.toLowerCase())).pluginId;
