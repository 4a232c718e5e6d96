import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

// Real nginx and Apache in front of the server, run from the project's shipped configuration
// files: each on a free port of its own, with its config, pid file, logs and temporary files in
// a temporary directory, stopped by its own PID. Shared by the integration tests and the bench.

const ROOT = findProjectRoot(__dirname);
const APACHE_MODULES = '/usr/lib/apache2/modules';

export type WebServerKind = 'nginx' | 'apache';
/** nginx: the complete server config or the location snippet; Apache: the vhost or the .htaccess. */
export type WebServerConfig = 'server' | 'location' | 'vhost' | 'htaccess';

export interface WebServerOptions {
  config: WebServerConfig;
  /** Where the application is installed: '' at the web root, or a directory such as '/hr'. */
  prefix: string;
  /** The API server's port on 127.0.0.1. */
  upstreamPort: number;
}

export interface WebServer {
  kind: WebServerKind;
  port: number;
  /** http://127.0.0.1:<port> */
  origin: string;
  pid: number;
  dir: string;
  /** The access log lines written so far. */
  accessLog(): string[];
  errorLog(): string;
  stop(): Promise<void>;
}

const BINARIES: Record<WebServerKind, string> = { nginx: 'nginx', apache: 'apache2' };

/** The binary's path, or undefined when it is not installed (apt-get install nginx apache2). */
export function webServerBinary(kind: WebServerKind): string | undefined {
  for (const dir of ['/usr/sbin', '/usr/local/sbin', ...(process.env.PATH ?? '').split(':')]) {
    const candidate = path.join(dir, BINARIES[kind]);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

export async function startWebServer(kind: WebServerKind, options: WebServerOptions): Promise<WebServer> {
  const binary = webServerBinary(kind);
  if (!binary) throw new Error(`${BINARIES[kind]} is not installed (apt-get install -y nginx apache2)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hrm-${kind}-`));
  const port = await freePort();
  const args = kind === 'nginx' ? writeNginxConfig(dir, port, options) : writeApacheConfig(dir, port, options);
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const errorLog = () => readIfExists(path.join(dir, 'error.log'));
  try {
    await waitForPort(port, child);
  } catch (error) {
    await stopChild(child);
    throw new Error(`${BINARIES[kind]} did not start: ${(error as Error).message}\n${output}\n${errorLog()}`, { cause: error });
  }
  return {
    kind,
    port,
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    dir,
    accessLog: () => readIfExists(path.join(dir, 'access.log')).split('\n').filter(Boolean),
    errorLog,
    stop: async () => {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The shipped file with its edits applied; each edit must match exactly `count` times outside comments. */
export function renderShipped(file: string, edits: Array<[from: string, to: string, count: number]>): string {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  for (const [from, to, count] of edits) {
    let seen = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      if (line.trimStart().startsWith('#')) continue;
      seen += line.split(from).length - 1;
      lines[i] = line.replaceAll(from, to);
    }
    if (seen !== count) throw new Error(`${file}: expected "${from}" ${count} time(s) outside comments, found ${seen}`);
  }
  return lines.join('\n');
}

function writeNginxConfig(dir: string, port: number, { config, prefix, upstreamPort }: WebServerOptions): string[] {
  let site: string;
  if (config === 'server') {
    site = renderShipped('nginx/hrm-api.conf', [
      ['server 127.0.0.1:8080;', `server 127.0.0.1:${upstreamPort};`, 1],
      ['listen 80;', `listen 127.0.0.1:${port};`, 1],
      ['location /app/api/ {', `location ${prefix}/app/api/ {`, 1],
      ['/var/log/nginx/hrm-api.access.log', path.join(dir, 'access.log'), 1],
    ]);
  } else if (config === 'location') {
    fs.writeFileSync(
      path.join(dir, 'location.conf'),
      renderShipped('nginx/hrm-api-location.conf', [
        ['proxy_pass http://127.0.0.1:8080;', `proxy_pass http://127.0.0.1:${upstreamPort};`, 1],
        ['location /app/api/ {', `location ${prefix}/app/api/ {`, 1],
      ]),
    );
    site = [
      `log_format hrm_test '$remote_addr [$time_iso8601] "$request_method $uri" $status request_id=$request_id';`,
      'server {',
      `    listen 127.0.0.1:${port};`,
      `    access_log ${path.join(dir, 'access.log')} hrm_test;`,
      `    include ${path.join(dir, 'location.conf')};`,
      '}',
    ].join('\n');
  } else {
    throw new Error(`nginx has no "${config}" configuration`);
  }
  fs.writeFileSync(path.join(dir, 'site.conf'), site);
  const temp = (name: string) => path.join(dir, name);
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${temp('nginx.pid')};`,
      `error_log ${temp('error.log')} notice;`,
      'events { worker_connections 512; }',
      'http {',
      `    client_body_temp_path ${temp('client_body')};`,
      `    proxy_temp_path ${temp('proxy')};`,
      `    fastcgi_temp_path ${temp('fastcgi')};`,
      `    uwsgi_temp_path ${temp('uwsgi')};`,
      `    scgi_temp_path ${temp('scgi')};`,
      '    access_log off;',
      `    include ${temp('site.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  return ['-p', dir, '-c', path.join(dir, 'nginx.conf')];
}

function writeApacheConfig(dir: string, port: number, { config, prefix, upstreamPort }: WebServerOptions): string[] {
  const docroot = path.join(dir, 'htdocs');
  fs.mkdirSync(docroot);
  let site: string;
  if (config === 'vhost') {
    site = renderShipped('apache/hrm-api.conf', [
      ['<VirtualHost *:80>', `<VirtualHost 127.0.0.1:${port}>`, 1],
      ['http://127.0.0.1:8080/', `http://127.0.0.1:${upstreamPort}/`, 2],
      ['/app/api/', `${prefix}/app/api/`, 5],
      ['${APACHE_LOG_DIR}/hrm-api.access.log', path.join(dir, 'access.log'), 1],
    ]);
  } else if (config === 'htaccess') {
    const apiDir = path.join(docroot, prefix, 'app', 'api');
    fs.mkdirSync(apiDir, { recursive: true });
    fs.writeFileSync(
      path.join(apiDir, '.htaccess'),
      renderShipped('apache/app-api.htaccess', [['http://127.0.0.1:8080%1', `http://127.0.0.1:${upstreamPort}%1`, 1]]),
    );
    // The shipped .htaccess leaves logging to the server; this one logs the same fields as the vhost.
    site = [
      `LogFormat "%a [%{%Y-%m-%dT%H:%M:%S}t] \\"%m %U\\" %>s %B %D request_id=%{X-Request-Id}i" hrm_test`,
      `CustomLog ${path.join(dir, 'access.log')} hrm_test`,
    ].join('\n');
  } else {
    throw new Error(`Apache has no "${config}" configuration`);
  }
  fs.writeFileSync(path.join(dir, 'site.conf'), site);
  const modules = ['mpm_event', 'authz_core', 'alias', 'proxy', 'proxy_http', 'headers', 'rewrite', 'unique_id'];
  const runAs = process.getuid?.() === 0 ? ['User www-data', 'Group www-data'] : [];
  fs.writeFileSync(
    path.join(dir, 'apache2.conf'),
    [
      `ServerRoot ${dir}`,
      'ServerName localhost',
      `PidFile ${path.join(dir, 'apache2.pid')}`,
      `DefaultRuntimeDir ${dir}`,
      `Mutex file:${dir} default`,
      `ErrorLog ${path.join(dir, 'error.log')}`,
      'LogLevel warn',
      ...runAs,
      ...modules.map((name) => `LoadModule ${name}_module ${APACHE_MODULES}/mod_${name}.so`),
      `Listen 127.0.0.1:${port}`,
      'StartServers 1',
      'ServerLimit 1',
      'ThreadsPerChild 64',
      'MaxRequestWorkers 64',
      `DocumentRoot ${docroot}`,
      `<Directory ${docroot}>`,
      '    Options FollowSymLinks',
      '    AllowOverride All',
      '    Require all granted',
      '</Directory>',
      `Include ${path.join(dir, 'site.conf')}`,
      '',
    ].join('\n'),
  );
  // Apache's workers run as www-data when started by root: they must reach the .htaccess files.
  fs.chmodSync(dir, 0o755);
  return ['-d', dir, '-f', path.join(dir, 'apache2.conf'), '-DFOREGROUND'];
}

/** SIGTERM to this one process, SIGKILL if it has not exited within 5 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(killer);
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    if (await canConnect(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nothing listened on port ${port} within 10 s`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('No port'))));
    });
  });
}

function readIfExists(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function findProjectRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the web-server helper');
    dir = parent;
  }
  return dir;
}
