#!/usr/bin/env node
// The scanner client's command line. It runs the TypeScript sources through tsx, so the package needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
