import mysql from 'mysql2/promise';

// Several MySQL/MariaDB hosts in one DATABASE_URL (a Galera cluster's nodes):
// mysql://user:pass@h1:3306,h2:3306,h3:3306/hrm. New connections go to the first host, in the
// URL's order, that answers and is a synced member of the primary component; a health check
// moves the pool away from a host that stops answering or leaves the cluster, and back to an
// earlier host once it is synced again (docs/scaling.md).

export interface MysqlHost {
  host: string;
  port: number;
}

interface MysqlUrl {
  hosts: MysqlHost[];
  user: string;
  password: string;
  database: string;
}

/** Parses mysql://user:pass@host[:port][,host[:port]...]/database; throws on anything else. */
export function parseMysqlUrl(url: string): MysqlUrl {
  const match = /^mysql:\/\/(?:([^@/]*)@)?([^/?#]+)\/([^?#]*)$/.exec(url);
  if (!match) throw new Error('not a mysql:// URL');
  const [, credentials = '', hostList = '', database = ''] = match;
  const hosts = hostList.split(',').map((entry) => {
    // One host at a time through URL, which validates names, IPv6 brackets and ports.
    const parsed = new URL(`mysql://${entry}`);
    if (!parsed.hostname || parsed.pathname || entry.includes('@')) throw new Error(`invalid host "${entry}"`);
    return { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port: parsed.port ? Number(parsed.port) : 3306 };
  });
  const separator = credentials.indexOf(':');
  const user = separator < 0 ? credentials : credentials.slice(0, separator);
  const password = separator < 0 ? '' : credentials.slice(separator + 1);
  return { hosts, user: decodeURIComponent(user), password: decodeURIComponent(password), database: decodeURIComponent(database) };
}

/** The same URL naming another database (same hosts and credentials). */
export function withDatabase(url: string, database: string): string {
  return url.replace(/\/[^/?#]*$/, `/${encodeURIComponent(database)}`);
}

/**
 * What a node says of itself. A server without Galera has no wsrep status and is always usable;
 * a Galera node is usable when it is ready and Synced (4): a joiner, a donor (blocked during an
 * rsync SST) or a node outside the primary component is not.
 */
export const NODE_STATUS_SQL = "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state')";

export function isUsableNode(rows: Array<{ Variable_name: string; Value: string }>): boolean {
  if (rows.length === 0) return true;
  const status = Object.fromEntries(rows.map((row) => [row.Variable_name, row.Value]));
  return status.wsrep_ready === 'ON' && status.wsrep_local_state === '4';
}

const HEALTH_CHECK_INTERVAL_MS = 1000;
const HEALTH_CHECK_TIMEOUT_MS = 2000;

/**
 * Which host new connections go to. `preferred` is the first usable host in the URL's order,
 * as last checked; the pool drops connections to any other host when they are next lent out.
 */
export class HostSelector {
  private readonly usable: boolean[];
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(
    private readonly url: MysqlUrl,
    private readonly onChange: (event: { host: string; usable: boolean }) => void = () => undefined,
  ) {
    this.usable = url.hosts.map(() => true);
  }

  get hosts(): MysqlHost[] {
    return this.url.hosts;
  }

  /** The hosts in the order to try them: usable ones first, each group in the URL's order. */
  candidates(): number[] {
    const order = this.url.hosts.map((_, index) => index);
    return [...order.filter((index) => this.usable[index]), ...order.filter((index) => !this.usable[index])];
  }

  preferred(): number {
    return this.candidates()[0] ?? 0;
  }

  mark(index: number, usable: boolean): void {
    if (this.usable[index] === usable) return;
    this.usable[index] = usable;
    const host = this.url.hosts[index] as MysqlHost;
    this.onChange({ host: `${host.host}:${host.port}`, usable });
  }

  /** Checks every host each second until stop(); never keeps the process alive. */
  start(): void {
    this.timer = setInterval(() => void this.checkAll(), HEALTH_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async checkAll(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      await Promise.all(this.url.hosts.map(async (host, index) => this.mark(index, await this.check(host))));
    } finally {
      this.checking = false;
    }
  }

  private async check(host: MysqlHost): Promise<boolean> {
    let connection: mysql.Connection | undefined;
    const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), HEALTH_CHECK_TIMEOUT_MS).unref());
    const probe = (async () => {
      try {
        connection = await mysql.createConnection({
          ...host,
          user: this.url.user,
          password: this.url.password,
          connectTimeout: HEALTH_CHECK_TIMEOUT_MS,
        });
        const [rows] = await connection.query(NODE_STATUS_SQL);
        return isUsableNode(rows as Array<{ Variable_name: string; Value: string }>);
      } catch {
        return false;
      }
    })();
    const usable = await Promise.race([probe, timeout]);
    void probe.finally(() => connection?.destroy());
    return usable;
  }
}
