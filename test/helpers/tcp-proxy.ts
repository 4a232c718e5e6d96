import net from 'node:net';

/**
 * A TCP proxy in front of a database, for fault tests: it forwards, refuses connections (the
 * database is down), or swallows traffic (the database hangs), and can cut every open connection.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private mode: 'forward' | 'blackhole' = 'forward';

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  /** Reserves a free port; the proxy is down (refusing) until `up()`. */
  static async create(target: { host: string; port: number }): Promise<TcpProxy> {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return new TcpProxy(port, target);
  }

  async up(): Promise<void> {
    this.mode = 'forward';
    if (this.server) return;
    this.server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server?.listen(this.port, '127.0.0.1', resolve));
  }

  /** Stops listening and cuts every connection: the database is gone. */
  async down(): Promise<void> {
    this.cutConnections();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Keeps connections open but passes nothing on: every query hangs. */
  blackhole(): void {
    this.mode = 'blackhole';
  }

  cutConnections(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  private accept(client: net.Socket): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => undefined);
    const upstream = net.connect(this.target.port, this.target.host);
    this.sockets.add(upstream);
    upstream.on('close', () => {
      this.sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('data', (chunk) => {
      if (this.mode === 'forward') client.write(chunk);
    });
    client.on('data', (chunk) => {
      if (this.mode === 'forward') upstream.write(chunk);
    });
  }
}
