/**
 * The zero value `npm run proto` gives an enum whose public values have no UNKNOWN (proto3 needs a zero value). It is
 * not a public value: the JSON answers leave out a field that holds it, and requests may not name it.
 */
export const UNSPECIFIED = 'UNSPECIFIED';
