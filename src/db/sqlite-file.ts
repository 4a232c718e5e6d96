import fs from 'node:fs';
import path from 'node:path';

/** A file or folder found readable by others, and the owner-only mode it now has. */
export interface ModeTightened {
  path: string;
  /** Octal, as ls and chmod show it: '0644'. */
  oldMode: string;
  newMode: string;
}

/**
 * config.ts's default database is `data/hrm.sqlite` in the working directory: that folder is ours
 * even when it already exists. Any other existing folder was chosen by the admin and may be shared
 * (/var/lib, a home directory), so it is left as it is.
 */
const DEFAULT_DATA_FOLDER = 'data';

const SIDE_FILE_SUFFIXES = ['-wal', '-shm', '-journal'];

/**
 * Makes the SQLite database owner-only before SQLite opens it: it holds the token-signing secret
 * and password hashes. The file is created here with mode 0600 (SQLite would create it 0644, and
 * creates its -wal and -shm files with the main file's mode); an existing file or side file with
 * a wider mode, and the folder when it is ours, are tightened and returned for a warning.
 */
export function secureSqliteFile(filename: string): ModeTightened[] {
  const file = path.resolve(filename);
  const folder = path.dirname(file);
  const tightened: ModeTightened[] = [];
  if (!fs.existsSync(folder)) {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    // The mode given to mkdir is narrowed by the umask; this makes it exactly 0700.
    fs.chmodSync(folder, 0o700);
  } else if (folder === path.resolve(DEFAULT_DATA_FOLDER)) {
    tightenPath(folder, tightened);
  }
  const existed = fs.existsSync(file);
  const fd = fs.openSync(file, 'a', 0o600);
  try {
    // A new file gets exactly 0600 whatever the umask (a umask of 0277 would leave it unwritable).
    if (!existed) fs.fchmodSync(fd, 0o600);
    else tightenOpen(fd, file, tightened);
  } finally {
    fs.closeSync(fd);
  }
  tightened.push(...secureSqliteSideFiles(file));
  return tightened;
}

/**
 * The -wal, -shm (and rollback -journal) files beside the database, tightened when they exist.
 * Run again once SQLite has opened the database: a side file left by an older release may have
 * been reopened with its old mode.
 */
export function secureSqliteSideFiles(filename: string): ModeTightened[] {
  const tightened: ModeTightened[] = [];
  for (const suffix of SIDE_FILE_SUFFIXES) {
    const sideFile = `${path.resolve(filename)}${suffix}`;
    if (fs.existsSync(sideFile)) tightenPath(sideFile, tightened);
  }
  return tightened;
}

function tightenPath(target: string, tightened: ModeTightened[]): void {
  const { mode } = fs.statSync(target);
  if ((mode & 0o077) === 0) return;
  fs.chmodSync(target, mode & 0o700);
  tightened.push(modeChange(target, mode));
}

function tightenOpen(fd: number, target: string, tightened: ModeTightened[]): void {
  const { mode } = fs.fstatSync(fd);
  if ((mode & 0o077) === 0) return;
  fs.fchmodSync(fd, mode & 0o700);
  tightened.push(modeChange(target, mode));
}

function modeChange(target: string, mode: number): ModeTightened {
  const octal = (value: number) => `0${(value & 0o777).toString(8).padStart(3, '0')}`;
  return { path: target, oldMode: octal(mode), newMode: octal(mode & 0o700) };
}
