import type { Config } from '../config';
import type { Logger } from '../logger';
import type { FirstAdmin } from '../provisioning/first-admin';
import { type FirstAdminNotice, handOverFirstAdmin } from './first-admin-token';

/** What the person starting the server is told, besides the URL. */
export interface StartNotes {
  firstAdmin?: FirstAdminNotice;
  apiEnabled?: boolean;
  /** The database did not answer at start; the server retries on every request. */
  databaseUnavailable?: boolean;
  /** Cloud mode: instances registered so far. */
  instanceCount?: number;
}

export function announce(config: Config, logger: Logger, port: number, notes: StartNotes): void {
  const base = config.deployment === 'cloud' ? `${config.cloudBasePath}/<instance>` : config.basePath;
  const apiUrl = `http://${config.host}:${port}${base}`;
  logger.info(
    { url: apiUrl, database: config.database.client, deployment: config.deployment, workers: config.workers },
    'server listening',
  );
  // For the person starting the server, not for the log: printed whatever LOG_LEVEL is.
  const message = config.deployment === 'cloud' ? cloudStartMessage(apiUrl, notes) : startMessage(apiUrl, notes);
  process.stdout.write(message);
}

/** The first admin's token, handed over as standard output allows (printed or in a file). */
export function firstAdminNotice(config: Config, firstAdmin: FirstAdmin): FirstAdminNotice {
  return handOverFirstAdmin(firstAdmin, config.firstAdminTokenFile, process.stdout.isTTY === true);
}

/** A first start whose database came up only after the start message: its token, now. */
export function announceLateFirstAdmin(config: Config, firstAdmin: FirstAdmin): void {
  process.stdout.write(firstAdminLines(firstAdminNotice(config, firstAdmin)).join('\n') + '\n\n');
}

export function firstAdminLines({ firstAdmin, tokenFile }: FirstAdminNotice): string[] {
  const created = `First start: created the user "${firstAdmin.username}" (linked to employee ${firstAdmin.employeeId})`;
  const more = 'More tokens: npm run -s hrm -- token issue --username admin';
  if (tokenFile === undefined) {
    return ['', `${created} and this token for it.`, 'It is shown only once; keep it secret:', '', `  ${firstAdmin.token}`, '', more];
  }
  if (tokenFile.error !== undefined) {
    return [
      '',
      `${created} and a token for it.`,
      `Standard output is not a terminal, so the token is not printed, and it could not be written to ${tokenFile.path} (${tokenFile.error}).`,
      'Issue a token with: npm run -s hrm -- token issue --username admin',
    ];
  }
  return [
    '',
    `${created} and a token for it.`,
    'Standard output is not a terminal, so the token is not printed. It is in this file, readable by this user only:',
    '',
    `  ${tokenFile.path}`,
    '',
    'Read it once, keep it secret, then delete the file.',
    more,
  ];
}

function startMessage(apiUrl: string, { firstAdmin, apiEnabled, databaseUnavailable }: StartNotes): string {
  const lines = [`\nHRM API listening on ${apiUrl}`];
  if (databaseUnavailable) {
    lines.push(
      '',
      'The database does not answer yet: requests get 503 until it does; the server keeps trying.',
      'A first start hands over the admin token once the database is reachable.',
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
