import { webServerBinary, type WebServerConfig, type WebServerKind } from '../../support/web-servers';

export interface WebServerVariant {
  kind: WebServerKind;
  config: WebServerConfig;
  /** '' for an install at the web root, '/hr' for one in a sub-directory. */
  prefix: string;
}

/** Every shipped configuration, at the web root and in a sub-directory. */
export const WEB_SERVER_VARIANTS: WebServerVariant[] = (
  [
    ['nginx', 'server'],
    ['nginx', 'location'],
    ['apache', 'vhost'],
    ['apache', 'htaccess'],
  ] as const
).flatMap(([kind, config]) => ['', '/hr'].map((prefix) => ({ kind, config, prefix })));

const reported = new Set<WebServerKind>();

/**
 * Defines `body` when the web server is installed. When it is not: under CI=true a failing test
 * says so (CI must run these tests; .ci/run installs nginx and apache2), otherwise the tests are
 * skipped and a warning says why, like the MySQL half of the suite.
 */
export function whenInstalled(kind: WebServerKind, body: () => void): void {
  if (webServerBinary(kind)) {
    body();
    return;
  }
  const reason = `${kind === 'apache' ? 'apache2' : 'nginx'} is not installed (apt-get install -y nginx apache2)`;
  if (process.env.CI === 'true') {
    it(`runs behind ${kind}`, () => {
      throw new Error(`${reason}; CI=true requires the web-server tests, so the run fails`);
    });
    return;
  }
  if (!reported.has(kind)) {
    reported.add(kind);
    process.stderr.write(`\n*** Web-server tests SKIPPED: ${reason}. ***\n`);
  }
  it.skip(`runs behind ${kind} (${reason})`, () => undefined);
}
