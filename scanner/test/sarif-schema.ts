import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

// The official SARIF 2.1.0 schema (fixtures/sarif-schema/SOURCES.md) as an Ajv validator, for the export's tests.
const schema = JSON.parse(
  readFileSync(new URL('./fixtures/sarif-schema/sarif-schema-2.1.0.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const { id, $schema: _draft04, ...rest } = schema;
// unicodeRegExp: false: the schema's `language` pattern has a stray `]`, valid only outside unicode mode (as the
// schema's own tooling reads patterns).
const ajv = new (Ajv as unknown as typeof Ajv.default)({ strict: false, allErrors: true, unicodeRegExp: false });
(addFormats as unknown as typeof addFormats.default)(ajv);
const validate = ajv.compile({ $id: String(id), ...rest });

/** The schema's complaints about a log ([] when it is valid). */
export function sarifSchemaErrors(log: unknown): string[] {
  if (validate(log)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}
