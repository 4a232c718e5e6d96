import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config';
import { SchemaTooNewError } from '../db/migrate';
import { InstanceCreationError } from '../provisioning/create-instance';
import { UnknownServerError } from '../instances/registry';
import { registerApiCommands } from './api';
import { registerAuditCommands } from './audit';
import { CliContext, CliError, type CliIo } from './context';
import { registerDbCommands } from './db';
import { registerDeviceCommands } from './device';
import { registerImportCommands } from './import';
import { registerInstanceCommands } from './instance';
import { registerSeedCommand } from './seed';
import { registerTokenCommands } from './token';
import { registerUserCommands } from './user';
import { registerWebhookCommands } from './webhook';

/** Runs one hrm command; resolves to the exit code. Never calls process.exit (tests run it in-process). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const context = new CliContext(io);
  const program = new Command('hrm')
    .description('Operate the Employee and Attendance REST API server (same configuration as the server)')
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .option('--instance <name>', 'cloud mode: the instance to work on (required there, refused when self-hosted)')
    .hook('preAction', () => context.selectInstance(program.opts<{ instance?: string }>().instance));
  registerInstanceCommands(program, context);
  registerDbCommands(program, context);
  registerApiCommands(program, context);
  registerUserCommands(program, context);
  registerTokenCommands(program, context);
  registerSeedCommand(program, context);
  registerAuditCommands(program, context);
  registerWebhookCommands(program, context);
  registerDeviceCommands(program, context);
  registerImportCommands(program, context);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    const known =
      error instanceof CliError || error instanceof ConfigError || error instanceof SchemaTooNewError || error instanceof InstanceCreationError ||
      error instanceof UnknownServerError;
    const reason = error instanceof Error ? error.message : String(error);
    io.stderr.write(`hrm: ${known ? reason : `failed: ${reason}`}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  } finally {
    await context.close();
  }
}
