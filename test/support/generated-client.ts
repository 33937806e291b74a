import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compileFunction } from 'node:vm';
import ts from 'typescript';

/**
 * A typed client generated from the served OpenAPI description, as a user of the API would
 * make one: openapi-typescript writes the `paths` types, openapi-fetch is the client. Nothing
 * is generated into the repository: everything goes to the given temporary directory.
 */

/**
 * Writes the description to `dir` and runs the openapi-typescript CLI on it, as a user of the
 * API would (its library build loads an ESM-only dependency that Jest cannot), producing
 * `schema.d.ts` with the description's `paths` and `components` types.
 */
export function generateSchemaTypes(document: object, dir: string): string {
  const source = join(dir, 'openapi.json');
  const file = join(dir, 'schema.d.ts');
  writeFileSync(source, JSON.stringify(document));
  const cli = join(dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js');
  // A field with a default may be left out of a request: by default openapi-typescript would
  // make it required in request bodies too.
  const run = spawnSync(
    process.execPath,
    [cli, source, '--output', file, '--default-non-nullable', 'false'],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) {
    throw new Error(`openapi-typescript failed: ${run.stderr || String(run.error)}`);
  }
  return file;
}

/** The type errors of `file` (strict), compiled against the generated schema and openapi-fetch. */
export function typeErrors(file: string): string[] {
  const openapiFetchTypes = join(dirname(require.resolve('openapi-fetch')), 'index');
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    skipLibCheck: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    baseUrl: dirname(file),
    // The file lives in a temporary directory, outside this project's node_modules.
    paths: { 'openapi-fetch': [openapiFetchTypes] },
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!diagnostic.file || diagnostic.start === undefined) {
      return text;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${diagnostic.file.fileName}:${line + 1}: ${text}`;
  });
}

/**
 * The exports of the TypeScript module in `source`, transpiled to CommonJS and run here, so
 * that the code that was type-checked is the code that runs. Its imports resolve from this
 * project (openapi-fetch); type-only imports disappear in the transpilation.
 */
export function loadModule<T>(source: string): T {
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
  });
  const module = { exports: {} as T };
  const run = compileFunction(outputText, ['exports', 'require', 'module']);
  run(module.exports, require, module);
  return module.exports;
}
