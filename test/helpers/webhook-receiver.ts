import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, with whether its signature verified against the receiver's secrets. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The parsed body. */
  event: { id: string; type: string; occurred_at: string; instance: string | null; changed_fields?: string[]; data: Record<string, any> };
  /** Which of `secrets` verified it (Standard Webhooks' own verifier); empty when none did. */
  verifiedWith: string[];
}

/**
 * A webhook receiver on loopback, as an integrator would write one: it verifies every request
 * with the standardwebhooks library and records it. `answer` decides the status per request
 * (200 unless told otherwise); `hold` keeps requests unanswered until released.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  secrets: string[] = [];
  answer: (request: Received) => number | { status: number; headers?: Record<string, string>; body?: string } = () => 200;
  private held: Array<() => void> | undefined;
  private readonly waiters = new Set<() => void>();
  private server!: http.Server;
  url = '';

  static async start(path = '/hooks'): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.server = http.createServer((req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', () => resolve()));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}${path}`;
    return receiver;
  }

  /** The verified events, in the order they arrived. */
  get events(): Received['event'][] {
    return this.received.filter((request) => request.verifiedWith.length > 0).map((request) => request.event);
  }

  /** Requests are held unanswered until `release`. */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const answer of held) answer();
  }

  /** Resolves once `count` requests arrived (or rejects after `timeoutMs`: a test failure, not a timing assertion). */
  async waitFor(count: number, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`The receiver got ${this.received.length} requests, waited for ${count}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(remaining, 200));
        const waiters = this.waiters;
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
        waiters.add(done);
      });
    }
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
      const verifiedWith = this.secrets.filter((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      let event: Received['event'];
      try {
        event = JSON.parse(body) as Received['event'];
      } catch {
        event = { id: '', type: '', occurred_at: '', instance: null, data: {} };
      }
      const request: Received = { headers: req.headers, body, event, verifiedWith };
      const respond = () => {
        const answer = this.answer(request);
        const { status, headers: extra, body: text } = typeof answer === 'number' ? { status: answer, headers: {}, body: '' } : answer;
        res.writeHead(status, extra);
        res.end(text ?? '');
      };
      this.received.push(request);
      for (const wake of [...this.waiters]) wake();
      if (this.held) this.held.push(respond);
      else respond();
    });
  }
}
