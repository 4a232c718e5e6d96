import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkUrlShape, RefusedUrlError, type Resolve, type ResolvedAddress, resolveAllowedAddresses, type UrlPolicy } from './addresses';

/** How much of a receiver's answer is read, and how much of it kept (last_error). */
const READ_LIMIT_BYTES = 1024;
const EXCERPT_CHARS = 200;

interface Outgoing {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What an attempt came to: delivered (a 2xx), or why not. Nothing else of the answer is kept. */
export interface SendResult {
  delivered: boolean;
  /** The receiver's HTTP status; null when none came (refused, unreachable, timed out). */
  status: number | null;
  /** Why it failed, with a short excerpt of the receiver's answer; null when delivered. */
  error: string | null;
}

interface SendOptions {
  policy: UrlPolicy;
  resolve: Resolve;
  /** The whole attempt (resolving, connecting, sending, the answer) within this (WEBHOOK_TIMEOUT). */
  timeoutMs: number;
  /** Keep-alive agents, one per scheme, owned by the worker (reused sockets were connected to checked addresses). */
  agents?: { http: http.Agent; https: https.Agent };
  /** Aborts the attempt (the worker stopping); it then counts as not answered. */
  signal?: AbortSignal;
}

/**
 * POSTs one webhook. The URL is checked again here, because DNS can change after the
 * subscription was made: the host is resolved, every address checked, and the connection made
 * to the checked address (the request's `lookup` answers with it), so that a second resolution
 * cannot lead elsewhere. Redirects are not followed: a 3xx is a failed attempt.
 */
export async function sendWebhook(outgoing: Outgoing, options: SendOptions): Promise<SendResult> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const deadline = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  let url: URL;
  let address: ResolvedAddress;
  try {
    url = checkUrlShape(outgoing.url, options.policy);
    const addresses = await raceDeadline(resolveAllowedAddresses(url, options.policy, options.resolve), deadline, options.timeoutMs);
    address = addresses[0] as ResolvedAddress;
  } catch (error) {
    if (error instanceof RefusedUrlError || error instanceof DeadlineError) return failed(null, `refused: ${error.message}`);
    throw error;
  }
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
  const secure = url.protocol === 'https:';
  const request = (secure ? https : http).request;
  return new Promise<SendResult>((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { ...outgoing.headers, 'Content-Length': String(Buffer.byteLength(outgoing.body)) },
        lookup,
        agent: options.agents ? (secure ? options.agents.https : options.agents.http) : false,
        signal: deadline,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let read = 0;
        let finished = false;
        const finish = () => {
          if (finished) return;
          finished = true;
          const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS).replace(/\s+/g, ' ').trim();
          if (status >= 200 && status < 300) resolve({ delivered: true, status, error: null });
          else if (status >= 300 && status < 400) resolve(failed(status, `answered ${status}: redirects are not followed`));
          else resolve(failed(status, `answered ${status}${excerpt ? `: ${excerpt}` : ''}`));
        };
        res.on('data', (chunk: Buffer) => {
          if (read >= READ_LIMIT_BYTES) return;
          chunks.push(chunk);
          read += chunk.length;
          // Enough to keep: the rest of a large answer is not waited for.
          if (read >= READ_LIMIT_BYTES) {
            finish();
            res.destroy();
          }
        });
        res.on('end', finish);
        res.on('error', () => finish());
      },
    );
    req.on('error', (error) => {
      const reason = timeout.aborted
        ? `no answer within ${options.timeoutMs / 1000} s`
        : deadline.aborted
          ? 'interrupted: the server was stopping'
          : `could not send: ${describeError(error)}`;
      resolve(failed(null, reason));
    });
    req.end(outgoing.body);
  });
}

function failed(status: number | null, error: string): SendResult {
  return { delivered: false, status, error: error.slice(0, 500) };
}

class DeadlineError extends Error {}

function raceDeadline<T>(promise: Promise<T>, deadline: AbortSignal, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DeadlineError(`no answer from DNS within ${timeoutMs / 1000} s`));
    if (deadline.aborted) return onAbort();
    deadline.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => deadline.removeEventListener('abort', onAbort));
  });
}

/** A network error as one line without addresses of this machine: its code, else its message. */
function describeError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ?? error.message;
}
