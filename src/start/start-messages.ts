import type { Config } from '../config';
import type { Logger } from '../logger';
import type { FirstAdmin } from '../provisioning/first-admin';

/** What the person starting the server is told, besides the URL. */
export interface StartNotes {
  firstAdmin?: FirstAdmin;
  apiEnabled?: boolean;
  /** The database did not answer at start; the server retries on every request. */
  databaseUnavailable?: boolean;
  /** Cloud mode: instances registered so far. */
  instanceCount?: number;
}

export function announce(config: Config, logger: Logger, port: number, notes: StartNotes): void {
  const base = config.deployment === 'cloud' ? `${config.cloudBasePath}/<instance>` : config.basePath;
  const apiUrl = `http://${config.host}:${port}${base}`;
  logger.info({ url: apiUrl, database: config.database.client, deployment: config.deployment, workers: config.workers }, 'server listening');
  // For the person starting the server, not for the log: printed whatever LOG_LEVEL is.
  const message = config.deployment === 'cloud' ? cloudStartMessage(apiUrl, notes) : startMessage(apiUrl, notes);
  process.stdout.write(message);
}

/** A first start whose database came up only after the start message: its token, now. */
export function announceLateFirstAdmin(firstAdmin: FirstAdmin): void {
  process.stdout.write(firstAdminLines(firstAdmin).join('\n') + '\n\n');
}

function firstAdminLines(firstAdmin: FirstAdmin): string[] {
  return [
    '',
    `First start: created the user "${firstAdmin.username}" (linked to employee ${firstAdmin.employeeId}) and this token for it.`,
    'It is shown only once; keep it secret:',
    '',
    `  ${firstAdmin.token}`,
    '',
    'More tokens: npm run -s hrm -- token issue --username admin',
  ];
}

function startMessage(apiUrl: string, { firstAdmin, apiEnabled, databaseUnavailable }: StartNotes): string {
  const lines = [`\nHRM API listening on ${apiUrl}`];
  if (databaseUnavailable) {
    lines.push(
      '',
      'The database does not answer yet: requests get 503 until it does; the server keeps trying.',
      'A first start prints the admin token once the database is reachable.',
    );
  }
  if (firstAdmin) lines.push(...firstAdminLines(firstAdmin));
  if (apiEnabled === false) {
    lines.push(
      '',
      'The REST API is disabled (every request answers 403 api_disabled). Enable it with:',
      '',
      '  npm run -s hrm -- api enable',
    );
  }
  lines.push('', 'Then try:', '', `  curl -H "Authorization: Bearer <token>" ${apiUrl}/employees/me`, '', '');
  return lines.join('\n');
}

function cloudStartMessage(apiUrl: string, { instanceCount, databaseUnavailable }: StartNotes): string {
  const lines = [`\nHRM API (cloud mode) listening on ${apiUrl}`, ''];
  if (databaseUnavailable) {
    lines.push('The control database does not answer yet: requests get 503 until it does; the server keeps trying.');
  } else if (instanceCount === 0) {
    lines.push(
      'No instance exists yet. Create one (it prints its admin token once) with:',
      '',
      '  npm run -s hrm -- instance create <name>',
    );
  } else {
    lines.push(`${instanceCount} instance(s) registered; list them with: npm run -s hrm -- instance list`);
  }
  lines.push('', '');
  return lines.join('\n');
}
