import { join, resolve } from 'node:path';
import { embeddedDatabaseDir, ROOT_DATABASES_DIR } from './embedded-postgres';

describe('where the embedded database lives', () => {
  const dataDir = '/root/loja/.data';

  it('is DATA_DIR/postgres for a normal user, and for root when the postgres user can reach it', () => {
    expect(embeddedDatabaseDir(dataDir, false, () => false)).toBe(join(dataDir, 'postgres'));
    expect(embeddedDatabaseDir(dataDir, true, () => true)).toBe(join(dataDir, 'postgres'));
  });

  it('is a folder of its own under /var/lib for root when DATA_DIR is out of the postgres user’s reach', () => {
    const chosen = embeddedDatabaseDir(dataDir, true, () => false);
    expect(chosen).toMatch(new RegExp(`^${ROOT_DATABASES_DIR}/[0-9a-f]{16}/postgres$`));
    // The same DATA_DIR always finds the same database; another one gets its own.
    expect(embeddedDatabaseDir(`${dataDir}/`, true, () => false)).toBe(chosen);
    expect(embeddedDatabaseDir(resolve('/root/outra/.data'), true, () => false)).not.toBe(chosen);
  });
});
