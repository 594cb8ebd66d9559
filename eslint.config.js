// ESLint: typescript-eslint's recommended rules, Prettier for layout, and the house's import
// boundaries (ARCHITECTURE.md): a feature reaches another only through its exported service.
import tseslint from 'typescript-eslint'
import prettier from 'eslint-config-prettier'

const FEATURES = [
  'authentication',
  'users',
  'player-profile',
  'leaderboard',
  'validated-actions',
  'cloud-save',
  'remote-config',
  'localization',
  'news',
  'gift-codes',
  'email-sending',
  'crash-reporting',
  'user-feedback',
  'user-logs',
  'operators',
]

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
  {
    files: ['plugins/*/**/*.ts'],
    ignores: ['plugins/core/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(?!core/|\\.\\./)[^/]+/(?!service\\.js$)',
              message: "A feature uses another feature only through that feature's service.ts (ARCHITECTURE.md).",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['plugins/core/**/*.ts', 'schemas/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `(^|/)(${FEATURES.join('|')})/`,
              message:
                'Core and schemas serve every feature: they never import one (a feature subscribes to core events instead).',
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
              regex: '^\\.\\./plugins/(?!core/)[^/]+/(?!service\\.js$)',
              message: "A command uses a feature only through that feature's service.ts (ARCHITECTURE.md).",
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
              message: 'db/ and config.ts are the ground floor: they never import from plugins/.',
            },
          ],
        },
      ],
    },
  },
)
