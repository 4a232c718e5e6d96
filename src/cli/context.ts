import type { Clock } from '../clock';
import { type Config, loadConfig } from '../config';
import { type Db, openDatabase } from '../db/connect';
import { openInstance, type Instance } from '../instance';

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  readStdin(): Promise<string>;
  clock: Clock;
}

/** A failure the user can fix; printed as one line, exit code 1. */
export class CliError extends Error {}

/**
 * What commands share: the configuration and the instance, opened on first use (so `hrm --help`
 * needs neither) and closed once the command is done.
 */
export class CliContext {
  private db: Db | undefined;
  private opened: Promise<Instance> | undefined;

  constructor(readonly io: CliIo) {}

  config(): Config {
    return loadConfig(this.io.env);
  }

  database(): Db {
    this.db ??= openDatabase(this.config().database, { poolMax: 2 });
    return this.db;
  }

  /** The instance, with its schema migrated: every command works on a fresh installation. */
  instance(): Promise<Instance> {
    this.opened ??= openInstance(this.database(), { clock: this.io.clock, jwtSecret: this.config().jwtSecret });
    return this.opened;
  }

  print(line: string): void {
    this.io.stdout.write(`${line}\n`);
  }

  async close(): Promise<void> {
    await this.db?.destroy();
  }
}
