import { parseMysqlUrl, withDatabase } from '../../src/db/mysql-hosts';
import { ConfigError, loadConfig } from '../../src/config';

describe('loadConfig', () => {
  it('defaults to the embedded SQLite file, loopback, port 8080 and /app/api', () => {
    expect(loadConfig({})).toEqual({
      database: { client: 'sqlite', filename: 'data/hrm.sqlite' },
      databaseServers: [],
      host: '127.0.0.1',
      port: 8080,
      basePath: '/app/api',
      deployment: 'self-hosted',
      cloudBasePath: '/api',
      jwtSecret: undefined,
      logLevel: 'info',
      bodyLimitBytes: 100 * 1024,
      trustProxy: ['loopback'],
      rateLimit: { perToken: 600, perIp: 60, store: 'memory' },
      redisUrl: 'redis://127.0.0.1:6379',
      corsOrigins: [],
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      requestTimeoutMs: 15_000,
      callerConcurrency: { limit: 4, waitMs: 2000 },
      listQueryTimeoutMs: 5000,
      exportConcurrency: 2,
      exportProcessConcurrency: 4,
      workers: 1,
      cloudMaxConnections: 40,
      cloudIdleTimeoutMs: 60_000,
      webhooks: { allowHttp: false, allowPrivate: false, timeoutMs: 10_000 },
      purgeIntervalMs: 3_600_000,
      scheduleSweepIntervalMs: 900_000,
      firstAdminTokenFile: 'data/first-admin-token',
    });
  });

  it('reads a DATABASE_URL naming several hosts, with causal reads on by default', () => {
    const url = 'mysql://hrm:s%40cret@db1.internal:3306,db2.internal,[fd00::3]:3307/hrm';
    expect(loadConfig({ DATABASE_URL: url }).database).toEqual({ client: 'mysql', url, causalReads: true });
    expect(parseMysqlUrl(url)).toEqual({
      hosts: [
        { host: 'db1.internal', port: 3306 },
        { host: 'db2.internal', port: 3306 },
        { host: 'fd00::3', port: 3307 },
      ],
      user: 'hrm',
      password: 's@cret',
      database: 'hrm',
    });
    expect(withDatabase(url, 'hrm_acme')).toBe('mysql://hrm:s%40cret@db1.internal:3306,db2.internal,[fd00::3]:3307/hrm_acme');
  });

  it('reads every variable', () => {
    const config = loadConfig({
      DATABASE_URL: 'mysql://hrm:secret@db.internal:3307/hrm',
      DATABASE_CAUSAL_READS: '0',
      HOST: '0.0.0.0',
      PORT: '9000',
      BASE_PATH: '/hr/app/api',
      DEPLOYMENT: 'cloud',
      CLOUD_BASE_PATH: '/tenants',
      LOG_LEVEL: 'warn',
      BODY_LIMIT: '1mb',
      RATE_LIMIT_PER_TOKEN: '1200',
      RATE_LIMIT_PER_IP: '0',
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: 'redis://cache.internal:6380/2',
      CORS_ORIGINS: 'https://hr.example.com, http://localhost:3000',
      METRICS_PORT: '9464',
      METRICS_HOST: '0.0.0.0',
      REQUEST_TIMEOUT: '5',
      CALLER_CONCURRENCY: '0',
      CALLER_CONCURRENCY_WAIT_MS: '500',
      LIST_QUERY_TIMEOUT_MS: '0',
      EXPORT_CONCURRENCY: '3',
      EXPORT_PROCESS_CONCURRENCY: '6',
      TRUST_PROXY: '10.0.0.0/8, loopback, 192.168.1.7, fd00::/8, 172.16.0.0/255.240.0.0',
      WORKERS: '4',
      CLOUD_MAX_CONNECTIONS: '100',
      CLOUD_IDLE_SECONDS: '15',
      WEBHOOK_ALLOW_HTTP: '1',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_TIMEOUT: '5',
      PURGE_INTERVAL: '600',
      SCHEDULE_SWEEP_INTERVAL: '60',
      FIRST_ADMIN_TOKEN_FILE: '/run/secrets/hrm-admin-token',
    });

    expect(config).toEqual({
      database: { client: 'mysql', url: 'mysql://hrm:secret@db.internal:3307/hrm', causalReads: false },
      databaseServers: [],
      host: '0.0.0.0',
      port: 9000,
      basePath: '/hr/app/api',
      deployment: 'cloud',
      cloudBasePath: '/tenants',
      jwtSecret: undefined,
      logLevel: 'warn',
      bodyLimitBytes: 1024 * 1024,
      rateLimit: { perToken: 1200, perIp: 0, store: 'redis' },
      redisUrl: 'redis://cache.internal:6380/2',
      corsOrigins: ['https://hr.example.com', 'http://localhost:3000'],
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
      requestTimeoutMs: 5_000,
      callerConcurrency: { limit: 0, waitMs: 500 },
      listQueryTimeoutMs: 0,
      exportConcurrency: 3,
      exportProcessConcurrency: 6,
      trustProxy: ['10.0.0.0/8', 'loopback', '192.168.1.7', 'fd00::/8', '172.16.0.0/255.240.0.0'],
      workers: 4,
      cloudMaxConnections: 100,
      cloudIdleTimeoutMs: 15_000,
      webhooks: { allowHttp: true, allowPrivate: true, timeoutMs: 5_000 },
      purgeIntervalMs: 600_000,
      scheduleSweepIntervalMs: 60_000,
      firstAdminTokenFile: '/run/secrets/hrm-admin-token',
    });
  });

  it('puts the first admin token file beside the SQLite database, or in data/ with MySQL', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite:/var/lib/hrm/hrm.sqlite' }).firstAdminTokenFile).toBe('/var/lib/hrm/first-admin-token');
    expect(loadConfig({ DATABASE_URL: 'mysql://hrm:secret@db.internal:3306/hrm' }).firstAdminTokenFile).toBe('data/first-admin-token');
    expect(loadConfig({ FIRST_ADMIN_TOKEN_FILE: '' }).firstAdminTokenFile).toBe('data/first-admin-token');
  });

  it('reads JWT_SECRET when self-hosted', () => {
    expect(loadConfig({ JWT_SECRET: 's'.repeat(40) }).jwtSecret).toBe('s'.repeat(40));
  });

  it('accepts sqlite:<path> and treats empty values as unset', () => {
    const config = loadConfig({ DATABASE_URL: 'sqlite:/var/lib/hrm/hrm.sqlite', PORT: '', WORKERS: '' });

    expect(config.database).toEqual({ client: 'sqlite', filename: '/var/lib/hrm/hrm.sqlite' });
    expect(config.port).toBe(8080);
    expect(config.workers).toBe(1);
  });

  it('refuses a hop count for TRUST_PROXY, saying why', () => {
    expect(() => loadConfig({ TRUST_PROXY: '1' })).toThrow(
      new ConfigError(
        'Invalid configuration: TRUST_PROXY must list proxy addresses or subnets; a hop count cannot tell a proxy from a client',
      ),
    );
  });

  it('takes TRUST_PROXY=none as trusting no proxy, not even loopback, and refuses none beside addresses', () => {
    expect(loadConfig({ TRUST_PROXY: 'none' }).trustProxy).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: ' None ' }).trustProxy).toEqual([]);
    expect(() => loadConfig({ TRUST_PROXY: 'none, loopback' })).toThrow(
      new ConfigError(
        'Invalid configuration: TRUST_PROXY must be none, or a comma-separated list of addresses, subnets (10.0.0.0/8), loopback, linklocal or uniquelocal',
      ),
    );
  });

  it('refuses JWT_SECRET in cloud mode: every instance has its own secret', () => {
    expect(() => loadConfig({ DEPLOYMENT: 'cloud', JWT_SECRET: 's'.repeat(40) })).toThrow(/JWT_SECRET is for self-hosted installs/);
  });

  it.each([
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: 'abc' }, 'PORT'],
    [{ DEPLOYMENT: 'saas' }, 'DEPLOYMENT'],
    [{ BASE_PATH: '/app/api/' }, 'BASE_PATH'],
    [{ CLOUD_BASE_PATH: 'api' }, 'CLOUD_BASE_PATH'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ BODY_LIMIT: 'lots' }, 'BODY_LIMIT'],
    [{ BODY_LIMIT: '100mb' }, 'BODY_LIMIT'],
    [{ JWT_SECRET: 'too-short' }, 'JWT_SECRET'],
    [{ TRUST_PROXY: 'TRUE' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'nginx.local' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'loopback, 10.0.0.0/8/1' }, 'TRUST_PROXY'],
    [{ WORKERS: '0' }, 'WORKERS'],
    [{ WORKERS: '65' }, 'WORKERS'],
    [{ WORKERS: '1.5' }, 'WORKERS'],
    [{ WORKERS: 'many' }, 'WORKERS'],
    [{ CLOUD_MAX_CONNECTIONS: '1' }, 'CLOUD_MAX_CONNECTIONS'],
    [{ CLOUD_IDLE_SECONDS: '0' }, 'CLOUD_IDLE_SECONDS'],
    [{ DATABASE_URL: 'postgres://localhost/hrm' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'mysql://root@localhost:3306' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'mysql://root@db1:3306,,db2:3306/hrm' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'mysql://root@db1:3306,db2:port/hrm' }, 'DATABASE_URL'],
    [{ DATABASE_CAUSAL_READS: 'sometimes' }, 'DATABASE_CAUSAL_READS'],
    [{ RATE_LIMIT_PER_TOKEN: '-1' }, 'RATE_LIMIT_PER_TOKEN'],
    [{ RATE_LIMIT_PER_IP: 'lots' }, 'RATE_LIMIT_PER_IP'],
    [{ RATE_LIMIT_STORE: 'memcached' }, 'RATE_LIMIT_STORE'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
    [{ CORS_ORIGINS: '*' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://hr.example.com/app' }, 'CORS_ORIGINS'],
    [{ METRICS_PORT: '0' }, 'METRICS_PORT'],
    [{ REQUEST_TIMEOUT: '0' }, 'REQUEST_TIMEOUT'],
    [{ CALLER_CONCURRENCY: '-1' }, 'CALLER_CONCURRENCY'],
    [{ CALLER_CONCURRENCY: '2.5' }, 'CALLER_CONCURRENCY'],
    [{ CALLER_CONCURRENCY_WAIT_MS: '60001' }, 'CALLER_CONCURRENCY_WAIT_MS'],
    [{ CALLER_CONCURRENCY_WAIT_MS: 'soon' }, 'CALLER_CONCURRENCY_WAIT_MS'],
    [{ LIST_QUERY_TIMEOUT_MS: '-5' }, 'LIST_QUERY_TIMEOUT_MS'],
    [{ LIST_QUERY_TIMEOUT_MS: '600001' }, 'LIST_QUERY_TIMEOUT_MS'],
    [{ EXPORT_CONCURRENCY: '0' }, 'EXPORT_CONCURRENCY'],
    [{ EXPORT_PROCESS_CONCURRENCY: '0' }, 'EXPORT_PROCESS_CONCURRENCY'],
    [{ WEBHOOK_ALLOW_HTTP: 'maybe' }, 'WEBHOOK_ALLOW_HTTP'],
    [{ WEBHOOK_ALLOW_PRIVATE: '2' }, 'WEBHOOK_ALLOW_PRIVATE'],
    [{ WEBHOOK_TIMEOUT: '0' }, 'WEBHOOK_TIMEOUT'],
    [{ WEBHOOK_TIMEOUT: '61' }, 'WEBHOOK_TIMEOUT'],
    [{ PURGE_INTERVAL: '59' }, 'PURGE_INTERVAL'],
    [{ PURGE_INTERVAL: '-1' }, 'PURGE_INTERVAL'],
    [{ PURGE_INTERVAL: 'hourly' }, 'PURGE_INTERVAL'],
    [{ SCHEDULE_SWEEP_INTERVAL: '0' }, 'SCHEDULE_SWEEP_INTERVAL'],
    [{ SCHEDULE_SWEEP_INTERVAL: '86401' }, 'SCHEDULE_SWEEP_INTERVAL'],
  ])('rejects %j naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`\\b${variable}\\b`));
  });

  it('reads DATABASE_SERVERS, and refuses it outside cloud mode on MySQL or with a bad entry, naming the variable', () => {
    const cloud = { DEPLOYMENT: 'cloud', DATABASE_URL: 'mysql://root@127.0.0.1:3306/hrm' };
    const good = 'eu1=mysql://u:p@h1:3306;eu2=mysql://u:p@h2:3306,h3:3306/';

    expect(loadConfig({ ...cloud, DATABASE_SERVERS: good }).databaseServers).toEqual([
      { name: 'eu1', url: 'mysql://u:p@h1:3306/' },
      { name: 'eu2', url: 'mysql://u:p@h2:3306,h3:3306/' },
    ]);
    expect(() => loadConfig({ ...cloud, DEPLOYMENT: 'self-hosted', DATABASE_SERVERS: good })).toThrow(
      /DATABASE_SERVERS is for cloud mode on MySQL/,
    );
    expect(() => loadConfig({ DEPLOYMENT: 'cloud', DATABASE_URL: 'sqlite:x.sqlite', DATABASE_SERVERS: good })).toThrow(
      /DATABASE_SERVERS is for cloud mode/,
    );
    expect(() => loadConfig({ ...cloud, DATABASE_SERVERS: 'default=mysql://u:p@h1:3306' })).toThrow(/cannot name a server "default"/);
    expect(() => loadConfig({ ...cloud, DATABASE_SERVERS: 'eu1=mysql://u:p@h1:3306;eu1=mysql://u:p@h2:3306' })).toThrow(
      /names the server eu1 twice/,
    );
    expect(() => loadConfig({ ...cloud, DATABASE_SERVERS: 'mysql://u:hunter2@h1:3306' })).toThrow(
      /must be name=mysql:.*\(got "mysql:\/\/h1:3306"\)$/,
    );
    expect(() => loadConfig({ ...cloud, DATABASE_SERVERS: 'eu1=mysql://u:p@h1:3306/somedb' })).toThrow(/invalid URL for eu1/);
    expect(() => loadConfig({ ...cloud, DATABASE_SERVERS: 'eu1=postgres://h1' })).toThrow(/invalid URL for eu1/);
  });
});
