import fs from 'node:fs';
import path from 'node:path';
import type { FirstAdmin } from '../provisioning/first-admin';

/** How the person starting the server gets the first admin's token. */
export interface FirstAdminNotice {
  firstAdmin: FirstAdmin;
  /** Standard output is no terminal: the file holding the token, or why it could not be written. */
  tokenFile?: { path: string; error?: string };
}

/**
 * On a terminal the token is printed. Otherwise standard output goes to a log (a service manager's
 * journal, a container's log, a file), which must not keep a long-lived admin credential: the
 * token goes to a file only this user can read, and the start message names it.
 */
export function handOverFirstAdmin(firstAdmin: FirstAdmin, tokenFile: string, terminal: boolean): FirstAdminNotice {
  if (terminal) return { firstAdmin };
  const file = path.resolve(tokenFile);
  try {
    writeTokenFile(file, firstAdmin.token);
    return { firstAdmin, tokenFile: { path: file } };
  } catch (error) {
    return { firstAdmin, tokenFile: { path: file, error: (error as NodeJS.ErrnoException).code ?? String(error) } };
  }
}

/**
 * Writes `token` to `file` with mode 0600. It is written under a new name (O_EXCL: never through a
 * planted link) and renamed over `file`, so an older file or a link at that path is replaced, not
 * written through, and a reader never sees half a token.
 */
export function writeTokenFile(file: string, token: string): void {
  // ./data/ on a MySQL installation may not exist yet; anything else at that path makes open fail.
  if (!fs.existsSync(path.dirname(file))) fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(temporary, 'wx', 0o600);
  try {
    // The mode given to open is narrowed by the umask; this makes it exactly 0600 whatever it is.
    fs.fchmodSync(fd, 0o600);
    fs.writeSync(fd, `${token}\n`);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
