import { inject } from 'vitest';

// Runs in each test worker before the test file is imported: the shared modules (shared/config.ts) read the
// environment at import, so they must see the local engines' endpoints first.
Object.assign(process.env, inject('env'));
