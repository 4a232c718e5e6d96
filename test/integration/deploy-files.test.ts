import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderShipped, webServerBinary } from '../../support/web-servers';
import { whenInstalled } from '../helpers/web-server-suite';

const ROOT = path.join(__dirname, '..', '..');
const UNIT = 'deploy/hrm-api.service';
const TLS_SITE = 'deploy/nginx-hrm-api-tls.conf';

/** The unit's sections and their keys, as systemd reads them (comments and blank lines skipped). */
function parseUnit(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(\w+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1] as string, current);
      continue;
    }
    const [key, ...value] = line.split('=');
    if (!current || value.length === 0) throw new Error(`not a key=value line inside a section: ${line}`);
    current.set((key as string).trim(), value.join('=').trim());
  }
  return sections;
}

function systemdAnalyze(): string | undefined {
  return ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((candidate) => fs.existsSync(candidate));
}

describe('the systemd unit (deploy/hrm-api.service)', () => {
  const text = fs.readFileSync(path.join(ROOT, UNIT), 'utf8');
  const unit = parseUnit(text);

  it('has the keys the service relies on, and starts what npm start starts', () => {
    const service = unit.get('Service');
    const start = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
      .start as string;

    expect([...unit.keys()]).toEqual(['Unit', 'Service', 'Install']);
    expect(service?.get('ExecStart')).toMatch(/^\/\S+\/node /);
    // The same node flags and entry point as `npm start`, minus its shell's exec.
    expect(service?.get('ExecStart')?.replace(/^\S+\/node /, 'exec node ')).toBe(start);
    expect(Object.fromEntries([...(service ?? [])].filter(([key]) => ['KillMode', 'Restart', 'UMask', 'User'].includes(key)))).toEqual({
      User: 'hrm',
      KillMode: 'mixed',
      Restart: 'on-failure',
      UMask: '0077',
    });
    expect(service?.get('WorkingDirectory')).toMatch(/^\//);
    expect(service?.get('ReadWritePaths')).toBe(`${service?.get('WorkingDirectory')}/data`);
    expect(unit.get('Install')?.get('WantedBy')).toBe('multi-user.target');
  });

  const analyze = systemdAnalyze();
  if (analyze === undefined && process.env.CI !== 'true') {
    it.skip('passes systemd-analyze verify (systemd-analyze is not installed)', () => undefined);
  } else {
    it('passes systemd-analyze verify without a warning', () => {
      if (analyze === undefined) throw new Error('systemd-analyze is not installed; CI=true requires this check');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-unit-'));
      try {
        // The node binary of this machine: the unit names the usual /usr/bin/node.
        const file = path.join(dir, 'hrm-api.service');
        fs.writeFileSync(file, renderShipped(UNIT, [['ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `, 1]]));

        const result = spawnSync(analyze, ['verify', file], { encoding: 'utf8' });

        expect({ status: result.status, output: `${result.stdout}${result.stderr}` }).toEqual({ status: 0, output: '' });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('the nginx TLS site (deploy/nginx-hrm-api-tls.conf)', () => {
  whenInstalled('nginx', () => {
    it('passes nginx -t, with the shipped location block included and a certificate in place', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-nginx-tls-'));
      try {
        const certificate = path.join(dir, 'fullchain.pem');
        const key = path.join(dir, 'privkey.pem');
        const openssl = spawnSync(
          'openssl',
          [
            'req',
            '-x509',
            '-newkey',
            'rsa:2048',
            '-nodes',
            '-days',
            '1',
            '-subj',
            '/CN=hrm.example.com',
            '-keyout',
            key,
            '-out',
            certificate,
          ],
          { encoding: 'utf8' },
        );
        expect(openssl.status).toBe(0);
        fs.writeFileSync(
          path.join(dir, 'site.conf'),
          renderShipped(TLS_SITE, [
            ['/etc/letsencrypt/live/hrm.example.com/fullchain.pem', certificate, 1],
            ['/etc/letsencrypt/live/hrm.example.com/privkey.pem', key, 1],
            ['/etc/nginx/snippets/hrm-api-location.conf', path.join(ROOT, 'nginx', 'hrm-api-location.conf'), 1],
          ]),
        );
        // The smallest nginx.conf that reads a conf.d file inside http {}, as Debian's does.
        fs.writeFileSync(
          path.join(dir, 'nginx.conf'),
          [
            `pid ${path.join(dir, 'nginx.pid')};`,
            `error_log ${path.join(dir, 'error.log')};`,
            'events {}',
            'http {',
            `    client_body_temp_path ${path.join(dir, 'client_body')};`,
            `    proxy_temp_path ${path.join(dir, 'proxy')};`,
            `    include ${path.join(dir, 'site.conf')};`,
            '}',
            '',
          ].join('\n'),
        );

        const result = spawnSync(
          webServerBinary('nginx') as string,
          ['-t', '-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf')],
          {
            encoding: 'utf8',
          },
        );

        expect([result.status, result.stderr]).toEqual([0, expect.stringMatching(/syntax is ok/)]);
        expect(result.stderr).toMatch(/test is successful/);
        // Newer nginx warns of `listen ... http2` (the site's comment says why it is kept).
        expect(
          result.stderr.split('\n').filter((line) => /\[(warn|emerg|error)\]/.test(line) && !/"http2" directive is deprecated/.test(line)),
        ).toEqual([]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});

describe('the deployment guide', () => {
  const guide = fs.readFileSync(path.join(ROOT, 'docs', 'deployment.md'), 'utf8');

  it('points to the shipped unit and TLS site instead of copies of them', () => {
    expect(guide).toContain(UNIT);
    expect(guide).toContain(TLS_SITE);
    expect(guide).not.toMatch(/^ExecStart=/m);
    expect(guide).not.toMatch(/^\s*ssl_certificate /m);
  });
});

describe('the release files', () => {
  const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { license: string; version: string };

  it('has an MIT LICENSE, as package.json says', () => {
    const license = fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8');

    expect(packageJson.license).toBe('MIT');
    expect(license.split('\n')[0]).toBe('MIT License');
    expect(license).toContain('Copyright (c) 2026 the hrm-api contributors');
  });

  it("has a CHANGELOG with an Unreleased section and package.json's version", () => {
    const changelog = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');

    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
    expect(changelog).toMatch(new RegExp(`^## \\[${packageJson.version.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
  });
});
