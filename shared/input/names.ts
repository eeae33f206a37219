import * as z from 'zod/mini';

// Names people read in lists, audit entries and terminals (applications, environments, teams, scan tags): control
// characters (NUL, C0, DEL, C1), bidi overrides and isolates (which make "\u202egnp.exe" read as "exe.png") and
// lone surrogates (not text at all) are refused.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\p{Cs}]/u;

/** The check to add to a name schema: 400 naming the field. */
export const displayableText = () =>
  z.refine<string>(
    (value) => !UNSAFE.test(value),
    'must not contain control, bidi-override or unpaired surrogate characters',
  );
