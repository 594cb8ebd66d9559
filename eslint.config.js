// ESLint: typescript-eslint's recommended rules, Prettier for layout, and the house's import
// boundaries (ARCHITECTURE.md, "Boundaries and rules"): a feature reaches another only through its
// exported service. The folders say what they hold: features/ (each folder one feature, in app.ts's
// one list) and platform/ (what every feature stands on), so no rule here names a feature.
import tseslint from 'typescript-eslint'
import prettier from 'eslint-config-prettier'

// The section of the repository's ARCHITECTURE.md each message sends the reader to (test/house/lint-boundaries.test.ts
// checks that it exists).
const ARCHITECTURE = 'ARCHITECTURE.md, "Boundaries and rules"'

/** What a feature shows the others: its service (functions) and its schemas (the shapes on the wire). */
const PUBLIC = '(service|schemas)\\.js$'

/** Another folder of features/ named from a file `depth` folders below features/ (1: features/x/y.ts). */
const featureRule = (depth) => ({
  regex: `^${'\\.\\./'.repeat(depth)}[^./][^/]*/(?!${PUBLIC})`,
  message: `A feature uses another feature only through that feature's service.ts or schemas.ts (${ARCHITECTURE}).`,
})
const ground = (what, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ regex: `(^|/)(${what})/`, message }] }],
})

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tap/**'] },
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...[1, 2].map((depth) => ({
    files: [`features/*/${'*/'.repeat(depth - 1)}*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [featureRule(depth)] }] },
  })),
  {
    files: ['platform/**/*.ts'],
    rules: ground(
      'features',
      `Platform code serves every feature: it never imports one; a feature subscribes to the event hub or hands the platform a callback instead (${ARCHITECTURE}).`,
    ),
  },
  {
    // The operator's commands (import:php, migrate-data) write through the features' services, like a feature would.
    files: ['scripts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `(^|/)features/[^/]+/(?!${PUBLIC})`,
              message: `A command uses a feature only through that feature's service.ts (${ARCHITECTURE}).`,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['db/**/*.ts', 'config.ts'],
    rules: ground(
      'platform|features',
      `db/ and config.ts are the ground floor: they never import from platform/ or features/ (${ARCHITECTURE}).`,
    ),
  },
)
