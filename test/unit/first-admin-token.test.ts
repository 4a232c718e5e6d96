import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { handOverFirstAdmin, writeTokenFile } from '../../src/start/first-admin-token';
import { firstAdminLines } from '../../src/start/start-messages';

const firstAdmin = { username: 'admin', employeeId: 7, token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl' };

describe('the first admin token on a first start', () => {
  let directory: string;
  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-first-admin-'));
  });
  afterEach(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('is printed on a terminal, and no file is written', () => {
    const file = path.join(directory, 'first-admin-token');

    const notice = handOverFirstAdmin(firstAdmin, file, true);

    expect(notice).toEqual({ firstAdmin });
    expect(fs.existsSync(file)).toBe(false);
    expect(firstAdminLines(notice)).toEqual([
      '',
      'First start: created the user "admin" (linked to employee 7) and this token for it.',
      'It is shown only once; keep it secret:',
      '',
      `  ${firstAdmin.token}`,
      '',
      'More tokens: npm run -s hrm -- token issue --username admin',
    ]);
  });

  it('goes to a file of mode 0600 when standard output is no terminal, and the lines name the file, not the token', () => {
    const file = path.join(directory, 'data', 'first-admin-token');

    const notice = handOverFirstAdmin(firstAdmin, file, false);

    expect(notice).toEqual({ firstAdmin, tokenFile: { path: file } });
    expect(fs.readFileSync(file, 'utf8')).toBe(`${firstAdmin.token}\n`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['first-admin-token']);
    const lines = firstAdminLines(notice);
    expect(lines).toContain(`  ${file}`);
    expect(lines.join('\n')).not.toContain(firstAdmin.token);
  });

  it('names the file by its absolute path', () => {
    const cwd = process.cwd();
    process.chdir(directory);
    try {
      expect(handOverFirstAdmin(firstAdmin, 'first-admin-token', false).tokenFile?.path).toBe(
        path.join(fs.realpathSync(directory), 'first-admin-token'),
      );
    } finally {
      process.chdir(cwd);
    }
  });

  it('replaces an older file and a symbolic link without writing through the link', () => {
    const file = path.join(directory, 'first-admin-token');
    const target = path.join(directory, 'elsewhere');
    fs.writeFileSync(target, 'untouched\n', { mode: 0o644 });
    fs.symlinkSync(target, file);

    writeTokenFile(file, 'first');
    writeTokenFile(file, 'second');

    expect(fs.lstatSync(file).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('second\n');
    expect(fs.readFileSync(target, 'utf8')).toBe('untouched\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('says why when the file cannot be written, and prints no token', () => {
    const notADirectory = path.join(directory, 'plain-file');
    fs.writeFileSync(notADirectory, '');
    const file = path.join(notADirectory, 'first-admin-token');

    const notice = handOverFirstAdmin(firstAdmin, file, false);

    expect(notice).toEqual({ firstAdmin, tokenFile: { path: file, error: 'ENOTDIR' } });
    expect(firstAdminLines(notice)).toEqual([
      '',
      'First start: created the user "admin" (linked to employee 7) and a token for it.',
      `Standard output is not a terminal, so the token is not printed, and it could not be written to ${file} (ENOTDIR).`,
      'Issue a token with: npm run -s hrm -- token issue --username admin',
    ]);
  });
});
