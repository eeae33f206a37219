// The sortable encodings of the list orders (docs/API.md, How a list is planned). The list indexes store these
// strings as sort keys (keys.ts), and the lists that sort in memory compare the same strings, so an order read from
// an index and the same order sorted in memory always agree.

/** A non-negative integer (ms, seconds, a count) as 15 digits, so that string order is numeric order. */
export const sortableNumber = (n: number | undefined) => String(Math.max(0, Math.floor(n ?? 0))).padStart(15, '0');

/** (number, id) order: an environment's last scan date, duration or untriaged findings, then its id. */
export const numberOrderKey = (n: number | undefined, id: string) => `${sortableNumber(n)}#${id}`;

/** The upper bound of the (number, id) keys whose number is at most `n`. */
export const numberOrderBound = (n: number) => `${sortableNumber(n)}#~`;

/** (name, id) order: names compare case-insensitively, then the id. */
export const nameOrderKey = (name: string, id: string) => `${name.toLowerCase()}#${id}`;

/** The prefix of the (name, id) keys of one name (any case). */
export const namePrefix = (name: string) => `${name.toLowerCase()}#`;
