import type { Command } from 'commander';
import { SETTINGS_TTL_MS } from '../settings/cache';
import { SETTING, writeSetting } from '../settings/repository';
import type { CliContext } from './context';

export function registerApiCommands(program: Command, context: CliContext): void {
  const api = program.command('api').description('the "Enable REST Api" setting');
  const seconds = Math.ceil((2 * SETTINGS_TTL_MS) / 1000);

  api
    .command('enable')
    .description('turn the REST API on')
    .action(async () => {
      const { db } = await context.instance();
      await writeSetting(db, SETTING.restApiEnabled, '1', context.io.clock.now());
      context.print(`The REST API is enabled. Running servers notice within ${seconds} seconds.`);
    });

  api
    .command('disable')
    .description('turn the REST API off: every request answers 403 api_disabled')
    .action(async () => {
      const { db } = await context.instance();
      await writeSetting(db, SETTING.restApiEnabled, '0', context.io.clock.now());
      context.print(`The REST API is disabled. Running servers notice within ${seconds} seconds.`);
    });

  api
    .command('status')
    .description('print "enabled" or "disabled"')
    .action(async () => {
      const instance = await context.instance();
      const { restApiEnabled } = await instance.settings.get();
      context.print(restApiEnabled ? 'enabled' : 'disabled');
    });
}
