// The rule for text people read as a label (application, environment and team names, scan tags, and what an imported
// report names: alert names, the scan's host and sites, the tool's version), in the service and in every importer:
// control characters (C0 including tab and line breaks, DEL, C1), bidi overrides and isolates (which make
// "\u202egnp.exe" read as "exe.png") and lone surrogates (not text at all) are refused, never stripped, so that
// what is stored is what was sent.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\p{Cs}]/u;

export const UNSAFE_TEXT_RULE = 'must not contain control, bidi-override or unpaired surrogate characters';

/** The first character the rule refuses, as `U+XXXX`, or undefined when the text is displayable. */
export function unsafeCharacterIn(value: string): string | undefined {
  const found = UNSAFE.exec(value);
  return found ? `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : undefined;
}
