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
import { registerPayPeriodCommands } from './pay-period';
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
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`hrm: ${text.replace(/^error: /, '')}`),
    })
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
  registerPayPeriodCommands(program, context);
  pointToHelp(program);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return USAGE_ERROR.test(error.code) ? 2 : error.exitCode;
    const known =
      error instanceof CliError ||
      error instanceof ConfigError ||
      error instanceof SchemaTooNewError ||
      error instanceof InstanceCreationError ||
      error instanceof UnknownServerError;
    const reason = error instanceof Error ? error.message : String(error);
    io.stderr.write(`hrm: ${known ? reason : `failed: ${reason}`}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  } finally {
    await context.close();
  }
}

/** What commander refuses before a command runs; help and version are not errors. */
const USAGE_ERROR =
  /^commander\.(unknownOption|unknownCommand|missingArgument|optionMissingArgument|missingMandatoryOptionValue|excessArguments|invalidArgument|conflictingOption)$/;

/**
 * A usage error is its one line and where to read more, not the whole usage text, which buried
 * the line that says what was wrong.
 */
function pointToHelp(command: Command): void {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  command.showHelpAfterError(`see ${names.join(' ')} --help`);
  for (const sub of command.commands) pointToHelp(sub);
}
