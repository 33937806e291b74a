/**
 * The layer rules of docs/ARCHITECTURE.md ("Modules and layers"), checked by `npm run lint`.
 *
 * A feature module is src/modules/<name>/ with four layers:
 *   domain/          entities, value objects, transition tables, errors: no I/O
 *   application/     use cases, workers, and the ports (abstract classes) that buy something:
 *                    a second adapter, a test double, a boundary between modules, or an
 *                    adapter that is not the module's own database access (HTTP, threads, files)
 *   infrastructure/  repositories (TypeORM and SQL, `*.repository.ts`) and the adapters that
 *                    implement the ports
 *   api/             controllers, DTOs and response mappers
 * application/ uses its own module's repositories directly (no port in between) and never names
 * TypeORM: it opens transactions with the kernel's UnitOfWork and hands on `Transaction`s.
 * The shared kernel (src/common, src/config, src/database) may be used by every layer.
 * Another module is reached only through what it exports: its application/ services and
 * ports, and the types of its domain/ that those services take or return.
 */
const MODULE = '^src/modules/([^/]+)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle between files makes the load order decide behaviour; break it with a port.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'domain/ imports only its own module\'s domain and the shared kernel.',
      from: { path: `${MODULE}domain/` },
      to: { path: '^src/', pathNot: ['^src/modules/$1/domain/', '^src/common/'] },
    },
    {
      name: 'application-uses-own-repositories',
      severity: 'error',
      comment:
        'application/ reaches infrastructure/ only for its own module\'s repositories (infrastructure/*.repository.ts); ' +
        'other adapters stand behind its ports, and api/ is never its business.',
      from: { path: `${MODULE}application/` },
      to: {
        path: '^src/modules/[^/]+/(infrastructure|api)/',
        pathNot: '^src/modules/$1/infrastructure/[^/]+[.]repository[.]ts$',
      },
    },
    {
      name: 'application-without-typeorm',
      severity: 'error',
      comment: 'application/ holds a Transaction and opens one with UnitOfWork.run; only infrastructure/ names TypeORM.',
      from: { path: `${MODULE}application/` },
      to: { dependencyTypes: ['npm'], path: '(^|/)node_modules/(typeorm|@nestjs/typeorm)/' },
    },
    {
      name: 'api-uses-application',
      severity: 'error',
      comment: 'Controllers call application services; they never query the database themselves.',
      from: { path: `${MODULE}api/` },
      to: { path: '^src/modules/[^/]+/infrastructure/' },
    },
    {
      name: 'infrastructure-implements-ports',
      severity: 'error',
      comment: 'infrastructure/ imports domain and its own module\'s ports (application/ports/), nothing else of application/ or api/.',
      from: { path: `${MODULE}infrastructure/` },
      to: { path: '^src/modules/[^/]+/(application|api)/', pathNot: '^src/modules/$1/application/ports/' },
    },
    {
      name: 'modules-talk-through-exports',
      severity: 'error',
      comment:
        'Another module is used through what it exports: its application services and ports (and the domain types they take or return), its Nest module; ' +
        'controllers may also build on its wire formats (api/*.dto.ts, api/*.response.ts) and use the auth module\'s guards (auth/api/guards/).',
      from: { path: MODULE },
      to: {
        path: '^src/modules/',
        pathNot: [
          '^src/modules/$1/',
          '^src/modules/[^/]+/(application|domain)/',
          '^src/modules/[^/]+/[^/]+[.]module[.]ts$',
          '^src/modules/[^/]+/api/[^/]+[.](dto|response)[.]ts$',
          '^src/modules/auth/api/guards/',
          '^src/modules/gateway/infrastructure/instance-pacing[.]sql[.]ts$',
        ],
      },
    },
    {
      name: 'instance-pacing-sql-for-the-engine',
      severity: 'error',
      comment:
        "The gateway's instance_pacing SQL is shared with the campaign engine's statements only: the claim holds " +
        'the instance, the delivery releases it in the same statement, and the engine reads a campaign\'s pause from it (docs/ARCHITECTURE.md, "Keeping numbers safe").',
      from: { pathNot: ['^src/modules/gateway/infrastructure/', '^src/modules/campaigns/infrastructure/dispatch[-.]'] },
      to: { path: '^src/modules/gateway/infrastructure/instance-pacing[.]sql[.]ts$' },
    },
    {
      name: 'published-api-only-to-api',
      severity: 'error',
      comment: 'Another module\'s wire formats and the auth guards are for controllers (api/) only.',
      from: { path: `${MODULE}(application|domain|infrastructure)/` },
      to: { path: '^src/modules/([^/]+)/api/', pathNot: '^src/modules/$1/api/' },
    },
    {
      name: 'kernel-stands-alone',
      severity: 'error',
      comment: 'The shared kernel never depends on a feature module.',
      from: { path: '^src/(common|config|database)/' },
      to: { path: '^src/modules/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
