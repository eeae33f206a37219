// Imported first by a test file that works on a main table of its own (test/integration/migrate.test.ts): the shared
// modules read TABLE_NAME at import (shared/config.ts), so it is set before any of them loads.
process.env.TABLE_NAME = `hawk-main-own-${process.pid}-${Date.now()}`;
export const OWN_TABLE = process.env.TABLE_NAME;
