import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/connect';
import { type ModeTightened, secureSqliteFile } from '../../src/db/sqlite-file';

const modeOf = (target: string) => fs.statSync(target).mode & 0o777;

describe('the SQLite database file (it holds the token-signing secret)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-sqlite-file-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is created 0600 in a folder created 0700, whatever the umask', () => {
    const file = path.join(dir, 'new', 'hrm.sqlite');
    const umask = process.umask(0o277);
    let tightened: ModeTightened[];
    try {
      tightened = secureSqliteFile(file);
    } finally {
      process.umask(umask);
    }

    expect(tightened).toEqual([]);
    expect(modeOf(path.dirname(file))).toBe(0o700);
    expect(modeOf(file)).toBe(0o600);
    expect(fs.statSync(file).size).toBe(0);
  });

  it('keeps its -wal and -shm files 0600 once SQLite opened it in WAL mode', async () => {
    const file = path.join(dir, 'data', 'hrm.sqlite');
    const umask = process.umask(0o022);
    const db = openDatabase({ client: 'sqlite', filename: file });
    try {
      await db.raw('CREATE TABLE t (x INTEGER)');
      await db('t').insert({ x: 1 });

      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(`${file}-wal`)).toBe(0o600);
      expect(modeOf(`${file}-shm`)).toBe(0o600);
    } finally {
      process.umask(umask);
      await db.destroy();
    }
  });

  it('tightens an existing 0644 file and side files, and says what each mode was', async () => {
    const file = path.join(dir, 'hrm.sqlite');
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o644);
    fs.writeFileSync(`${file}-wal`, '');
    fs.chmodSync(`${file}-wal`, 0o664);
    fs.chmodSync(dir, 0o755);
    const told: ModeTightened[] = [];

    const db = openDatabase({ client: 'sqlite', filename: file }, { onModeTightened: (change) => told.push(change) });
    await db.raw('SELECT 1');
    await db.destroy();

    expect(told).toEqual([
      { path: file, oldMode: '0644', newMode: '0600' },
      { path: `${file}-wal`, oldMode: '0664', newMode: '0600' },
    ]);
    expect(modeOf(file)).toBe(0o600);
    // A folder the admin chose (it existed, and is not ./data) may be shared: left as it was.
    expect(modeOf(dir)).toBe(0o755);
  });

  it('says nothing when everything is owner-only already', () => {
    const file = path.join(dir, 'hrm.sqlite');
    secureSqliteFile(file);

    expect(secureSqliteFile(file)).toEqual([]);
  });

  it('tightens an existing default ./data folder, the one folder it may change without having created it', () => {
    const previous = process.cwd();
    fs.mkdirSync(path.join(dir, 'data'), { mode: 0o755 });
    fs.chmodSync(path.join(dir, 'data'), 0o755);
    process.chdir(dir);
    try {
      const tightened = secureSqliteFile(path.join('data', 'hrm.sqlite'));

      expect(tightened).toEqual([{ path: path.join(dir, 'data'), oldMode: '0755', newMode: '0700' }]);
      expect(modeOf(path.join(dir, 'data'))).toBe(0o700);
      expect(modeOf(path.join(dir, 'data', 'hrm.sqlite'))).toBe(0o600);
    } finally {
      process.chdir(previous);
    }
  });
});
