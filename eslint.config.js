// ESLint: typescript-eslint's recommended rules, without type information so that `npm run lint` stays quick.
// Prettier owns formatting (`npm run format`), so the one stylistic rule it contradicts is off.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'cdk.out/**',
      '.data/**',
      'web/dist/**',
      'web/src/api/schema.gen.ts',
      'scanner/src/api/schema.gen.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      'no-unexpected-multiline': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  { files: ['web/**/*.{ts,tsx}'], languageOptions: { globals: { ...globals.browser } } },
  // Tests and scripts poke at untyped JSON answers and third-party internals.
  { files: ['test/**', 'scanner/test/**', 'scripts/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
