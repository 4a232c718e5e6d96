import type { Clock } from '../clock';
import { type Config, loadConfig } from '../config';
import { type Db, openDatabase, type OpenDatabaseOptions } from '../db/connect';
import { CONTROL_DATABASE_MIGRATIONS, migrateToLatest } from '../db/migrate';
import { openInstance, type Instance } from '../instances/instance';
import { findRegisteredInstance, instanceDatabaseConfig, isInstanceName } from '../instances/registry';

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  readStdin(): Promise<string>;
  clock: Clock;
}

/** A failure the user can fix; printed as one line, exit code 1 unless the command says otherwise. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * What commands share: the configuration and the instance, opened on first use (so `hrm --help`
 * needs neither) and closed once the command is done. In cloud mode the instance is the one
 * named by `--instance`, found through the registry in the control database.
 */
export class CliContext {
  private instanceName: string | undefined;
  private db: Promise<Db> | undefined;
  private opened: Promise<Instance> | undefined;
  private controlDb: Promise<Db> | undefined;
  private readonly toClose: Db[] = [];

  constructor(readonly io: CliIo) {}

  config(): Config {
    return loadConfig(this.io.env);
  }

  /** The value of the global `--instance` option, set before the command's action runs. */
  selectInstance(name: string | undefined): void {
    this.instanceName = name;
  }

  /** The instance's database, not yet migrated (hrm db migrate reports what it applies). */
  database(): Promise<Db> {
    this.db ??= this.openInstanceDatabase();
    return this.db;
  }

  /** The instance, with its schema migrated: every command works on a fresh installation. */
  instance(): Promise<Instance> {
    this.opened ??= this.database().then((db) => {
      const { deployment, jwtSecret } = this.config();
      return openInstance(db, { name: deployment === 'cloud' ? this.instanceName : undefined, clock: this.io.clock, jwtSecret });
    });
    return this.opened;
  }

  /** Cloud mode's control database (the instance registry), migrated. */
  control(): Promise<Db> {
    this.controlDb ??= (async () => {
      const config = this.config();
      if (config.deployment !== 'cloud') throw new CliError('Instances exist only in cloud mode (DEPLOYMENT=cloud)');
      if (this.instanceName !== undefined) throw new CliError('hrm instance commands do not take --instance');
      const control = this.track(openDatabase(config.database, this.openOptions(2)));
      await migrateToLatest(control, CONTROL_DATABASE_MIGRATIONS);
      return control;
    })();
    return this.controlDb;
  }

  print(line: string): void {
    this.io.stdout.write(`${line}\n`);
  }

  async close(): Promise<void> {
    await Promise.all(this.toClose.map((db) => db.destroy()));
  }

  private async openInstanceDatabase(): Promise<Db> {
    const config = this.config();
    const name = this.instanceName;
    if (config.deployment !== 'cloud') {
      if (name !== undefined) throw new CliError('--instance is only for cloud mode (DEPLOYMENT=cloud)');
      return this.track(openDatabase(config.database, this.openOptions(2)));
    }
    if (name === undefined)
      throw new CliError('In cloud mode, name the instance: hrm --instance <name> ... (hrm instance list shows them)');
    const control = this.track(openDatabase(config.database, this.openOptions(1)));
    // Migrated first: an upgraded release's registry columns (the server) may be new.
    await migrateToLatest(control, CONTROL_DATABASE_MIGRATIONS);
    const registered = isInstanceName(name) ? await findRegisteredInstance(control, name) : undefined;
    if (!registered) throw new CliError(`There is no instance named ${name} (hrm instance list shows them)`);
    // A change now could be left behind on the old server (servers refuse writes meanwhile too).
    if (registered.movingSince !== null)
      throw new CliError(`The instance ${name} is moving to another database server; try again when hrm instance move is done`);
    const server = { name: registered.server, configured: config.databaseServers };
    return this.track(openDatabase(instanceDatabaseConfig(config.database, registered.databaseName, server), this.openOptions(2)));
  }

  /**
   * hrm opens the server's SQLite file, and may be the first to create it: owner-only too
   * (src/db/sqlite-file.ts), and a wider mode found is tightened and told on standard error.
   */
  private openOptions(poolMax: number): OpenDatabaseOptions {
    return {
      poolMax,
      onModeTightened: ({ path, oldMode, newMode }) =>
        this.io.stderr.write(`hrm: warning: ${path} was readable by other users (mode ${oldMode}); changed to ${newMode}\n`),
    };
  }

  private track(db: Db): Db {
    this.toClose.push(db);
    return db;
  }
}
