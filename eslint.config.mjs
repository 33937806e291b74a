// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.cache/**', 'eslint.config.mjs', '.dependency-cruiser.cjs', 'jest.config.js', 'scripts/**', 'test/support/global-*.js'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      eqeqeq: ['error', 'always'],
      curly: ['error', 'all'],
      'no-console': 'error',
    },
  },
  {
    // The domain layer stays free of Nest, HTTP and the ORM's query side.
    files: ['src/modules/*/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@nestjs/*', 'express', '**/api/**', '**/infrastructure/**', '**/application/**'], message: 'The domain layer depends on nothing outward.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/modules/*/application/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'typeorm', message: 'Use UnitOfWork.run and Transaction; only infrastructure/ names TypeORM.' },
            { name: '@nestjs/typeorm', message: 'Use UnitOfWork.run and Transaction; only infrastructure/ names TypeORM.' },
          ],
          patterns: [{ group: ['**/api/**', 'express'], message: 'Application services do not know the HTTP edge.' }],
        },
      ],
    },
  },
  {
    // A file a reader can hold in mind, and functions of one screen (docs/CONTRIBUTING.md).
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts', 'src/database/migrations/**'],
    rules: {
      'max-lines': ['error', { max: 399 }],
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', '**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      'no-console': 'off',
    },
  },
);
