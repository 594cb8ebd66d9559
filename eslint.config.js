// ESLint: typescript-eslint's recommended rules, Prettier for layout, and the house's import
// boundaries (ARCHITECTURE.md, "Boundaries and rules"): a feature reaches another only through its exported service.
import tseslint from 'typescript-eslint'
import prettier from 'eslint-config-prettier'

/**
 * The shared folders of plugins/ (each has a README of what it holds): every other folder there is a
 * feature, so adding a feature needs no edit here. app.ts holds the one list of features.
 */
const SHARED = ['core', 'http', 'security', 'observability', 'openapi', 'cluster', 'content', 'jobs']
const shared = SHARED.join('|')
// The section of the repository's ARCHITECTURE.md each message sends the reader to (test/lint-boundaries.test.ts
// checks that it exists).
const ARCHITECTURE = 'ARCHITECTURE.md, "Boundaries and rules"'

/** Another folder of plugins/ named from a file `depth` folders below plugins/ (1: plugins/x/y.ts). */
const sibling = (depth) => `^${'\\.\\./'.repeat(depth)}`

/** A feature reaches another feature only through its service.ts; shared folders freely. */
const featureRule = (depth) => ({
  regex: `${sibling(depth)}(?!(${shared})/)[^./][^/]*/(?!service\\.js$)`,
  message: `A feature uses another feature only through that feature's service.ts (${ARCHITECTURE}).`,
})
/** Shared code serves every feature: it never imports one. */
const sharedRule = (depth) => ({
  regex: `${sibling(depth)}(?!(${shared})/)[^./][^/]*/`,
  message: `Shared code (plugins/{${SHARED.join(',')}}) never imports a feature: a feature subscribes to the event hub or hands shared code a callback instead (${ARCHITECTURE}).`,
})
const sharedFiles = (depth) => SHARED.map((folder) => `plugins/${folder}/${'*/'.repeat(depth - 1)}*.ts`)

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
  ...[1, 2].flatMap((depth) => [
    {
      files: [`plugins/*/${'*/'.repeat(depth - 1)}*.ts`],
      ignores: sharedFiles(depth),
      rules: { 'no-restricted-imports': ['error', { patterns: [featureRule(depth)] }] },
    },
    {
      files: sharedFiles(depth),
      rules: { 'no-restricted-imports': ['error', { patterns: [sharedRule(depth)] }] },
    },
  ]),
  {
    files: ['schemas/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `(^|/)plugins/(?!(${shared})/)`,
              message: `Schemas serve every feature: they never import one (${ARCHITECTURE}).`,
            },
          ],
        },
      ],
    },
  },
  {
    // The operator's commands (import:php) write through the features' services, like a feature would.
    files: ['scripts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^\\.\\./plugins/(?!(${shared})/)[^/]+/(?!service\\.js$)`,
              message: `A command uses a feature only through that feature's service.ts (${ARCHITECTURE}).`,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['db/**/*.ts', 'config.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)plugins/',
              message: `db/ and config.ts are the ground floor: they never import from plugins/ (${ARCHITECTURE}).`,
            },
          ],
        },
      ],
    },
  },
)
