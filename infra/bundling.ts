// How every function is bundled, shared by the stack (infra/stack.ts) and the bench (scripts/bench/foundation.ts)
// so that what is measured is what is deployed.
//
// CommonJS, not ESM: the Node.js 22 runtime provides the AWS SDK v3 (kept out of the bundles), and a bundle that
// loads it with `require` starts in about half the time of one that `import`s it. Importing the SDK's CommonJS
// packages from ESM makes Node scan every one of their modules for its exports (cjs-module-lexer, ~40 ms of a
// ~100 ms cold import, measured with --cpu-prof); require skips that. Lambda loads a `.js` handler with require.
// The source stays ESM TypeScript: esbuild turns `import ... from '@aws-sdk/x'` into `require("@aws-sdk/x")`
// (infra/code-access.ts reads both forms), and `import.meta.url` into the bundle's own file URL. A module loaded on
// use (`await import('@aws-sdk/client-s3')`: only some requests need it) is required too, when first needed
// (`supported: dynamic-import false`): the signing secret's client on every cold start, S3 on the paths that use it.
export const FUNCTION_BUNDLE = {
  format: 'cjs',
  target: 'node22',
  platform: 'node',
  external: ['@aws-sdk/*'],
  mainFields: ['module', 'main'],
  define: { 'import.meta.url': '__bundleUrl' },
  supported: { 'dynamic-import': false },
  banner: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;",
  /** The bundle's file name: Lambda's handler `index.handler` finds it. */
  file: 'index.js',
  /**
   * Written beside the bundle: the bundle is CommonJS whatever a package.json above it says (the repository's says
   * `"type": "module"`, which would make Node read a synthesized bundle under cdk.out/ as ESM in the tests).
   */
  packageJson: '{"type":"commonjs"}\n',
} as const;
