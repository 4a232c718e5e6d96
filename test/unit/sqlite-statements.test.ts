import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Db, openDatabase } from '../../src/db/connect';

// A SQLite connection keeps the statements it prepared, by SQL text (src/db/connect.ts): Knex's
// queries then reuse a compiled statement instead of compiling it again.

interface Connection {
  prepare(sql: string): object;
}

describe('a SQLite connection', () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-statements-'));
    db = openDatabase({ client: 'sqlite', filename: path.join(dir, 'db.sqlite') });
  });
  afterEach(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const withConnection = async <T>(use: (connection: Connection) => T): Promise<T> => {
    const connection = (await db.client.acquireConnection()) as Connection;
    try {
      return use(connection);
    } finally {
      await db.client.releaseConnection(connection);
    }
  };

  it('gives the statement it prepared before for the same SQL, and a new one for other SQL', async () => {
    await withConnection((connection) => {
      const first = connection.prepare('SELECT 1 AS one');
      expect(connection.prepare('SELECT 1 AS one')).toBe(first);
      expect(connection.prepare('SELECT 2 AS two')).not.toBe(first);
    });
  });

  it('keeps the 500 most recently used: the least recently used is compiled again', async () => {
    await withConnection((connection) => {
      const oldest = connection.prepare('SELECT 0');
      const kept = connection.prepare('SELECT 1');
      for (let n = 2; n < 500; n++) connection.prepare(`SELECT ${n}`);
      // Used again: now the most recent, so the next new statement pushes out SELECT 0 instead.
      expect(connection.prepare('SELECT 1')).toBe(kept);
      connection.prepare('SELECT 500');
      expect(connection.prepare('SELECT 1')).toBe(kept);
      expect(connection.prepare('SELECT 0')).not.toBe(oldest);
    });
  });

  it('answers Knex queries through kept statements with the rows of the moment', async () => {
    await db.schema.createTable('things', (table) => {
      table.increments('id');
      table.string('name');
    });
    await db('things').insert({ name: 'a' });
    expect(await db('things').select('name')).toEqual([{ name: 'a' }]);
    await db('things').insert({ name: 'b' });
    expect(await db('things').select('name').orderBy('id')).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(await db('things').select('name')).toEqual([{ name: 'a' }, { name: 'b' }]);
  });
});
