// Webhooks: what the outbox adds to a write, and how fast the worker delivers.
//
//   npm run build:bench && node dist/bench/webhooks.js [--writes 400] [--events 2000] [--rounds 3]
//
// For each database (a temporary SQLite file; MariaDB/MySQL at BENCH_MYSQL_URL, default
// mysql://root@127.0.0.1:3306/hrm_bench_webhooks, dropped and recreated, skipped when
// unreachable): creates employees through the write corridor (idempotentWrite + createEmployee,
// as POST /employees does, without HTTP) with 0, 1 and 3 subscriptions, alternating, and prints
// the mean time per write; then queues --events deliveries to a receiver on loopback and times
// the worker draining them (events/s). Ratios within one run only: the machine may be shared.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import pino from 'pino';
import { systemClock } from '../src/clock';
import { type Db, openDatabase } from '../src/db/connect';
import { createEmployee } from '../src/employees/create-employee';
import { idempotentWrite } from '../src/idempotency/idempotent';
import { openInstance } from '../src/instances/instance';
import { singleInstance } from '../src/instances/source';
import { createWebhook } from '../src/webhooks/subscriptions';
import { DeliveryWorker } from '../src/webhooks/worker';
import { createSqliteDatabase, DatabaseUnreachableError, recreateMysqlDatabase, type BenchDatabase } from './databases';

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const WRITES = option('writes', 400);
const EVENTS = option('events', 2000);
const ROUNDS = option('rounds', 3);
const CALLER = { userId: 0, username: 'bench', role: 'admin' as const, employeeId: null, tokenId: '' };

let sequence = 0;

async function timeWrites(db: Db, count: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let n = 0; n < count; n++) {
    sequence += 1;
    const body = { employee_id: `B${sequence}`, first_name: 'Bench', last_name: `Mark${sequence}`, work_email: `b${sequence}@example.com` };
    const now = new Date();
    await idempotentWrite(db, { userId: 0, key: undefined, requestHash: '', now }, async (trx) => ({
      status: 201,
      body: await createEmployee(trx, body, { now, defaultTimezone: 'UTC', caller: CALLER, requestId: 'bench' }),
    }));
  }
  return Number(process.hrtime.bigint() - started) / 1e6 / count;
}

async function setSubscriptions(db: Db, count: number, url: string): Promise<void> {
  await db('webhook_deliveries').delete();
  await db('webhook_events').delete();
  await db('webhooks').delete();
  for (let n = 0; n < count; n++) await createWebhook(db, { url, events: ['*'] }, new Date());
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function benchDatabase(database: BenchDatabase, receiverUrl: string, received: () => number): Promise<string[]> {
  const db = openDatabase(database.config);
  try {
    const instance = await openInstance(db, { clock: systemClock });
    const perWrite: Record<number, number[]> = { 0: [], 1: [], 3: [] };
    await timeWrites(db, 50); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const subscriptions of [0, 1, 3]) {
        await setSubscriptions(db, subscriptions, receiverUrl);
        perWrite[subscriptions]?.push(await timeWrites(db, WRITES));
      }
    }

    const rates: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await setSubscriptions(db, 1, receiverUrl);
      await timeWrites(db, EVENTS);
      const worker = new DeliveryWorker({
        instances: singleInstance(instance),
        instanceNames: async () => [undefined],
        clock: systemClock,
        logger: pino({ level: 'silent' }),
        policy: { allowHttp: true, allowPrivate: true },
        timeoutMs: 10_000,
      });
      const before = received();
      const started = process.hrtime.bigint();
      // The loop main.ts runs: it claims again as attempts end, without waiting for a whole batch.
      worker.start();
      const deadline = Date.now() + 120_000;
      while (received() - before < EVENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      await worker.stop();
      if (received() - before !== EVENTS) throw new Error(`The receiver got ${received() - before} of ${EVENTS} events`);
      rates.push(EVENTS / seconds);
    }

    const ms = (subscriptions: number) => median(perWrite[subscriptions] ?? []);
    return [
      `| ${database.label} | ${ms(0).toFixed(2)} | ${ms(1).toFixed(2)} (+${(ms(1) - ms(0)).toFixed(2)}) | ${ms(3).toFixed(2)} (+${(ms(3) - ms(0)).toFixed(2)}) | ${Math.round(median(rates))} |`,
    ];
  } finally {
    await db.destroy();
  }
}

async function main(): Promise<void> {
  let count = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-bench-webhooks-'));
  const rows: string[] = [];
  try {
    rows.push(...(await benchDatabase(createSqliteDatabase(workDir), receiverUrl, () => count)));
    try {
      const mysql = await recreateMysqlDatabase(process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/hrm_bench_webhooks');
      rows.push(...(await benchDatabase(mysql, receiverUrl, () => count)));
    } catch (error) {
      if (!(error instanceof DatabaseUnreachableError)) throw error;
      process.stderr.write(`MySQL skipped: ${error.message}\n`);
    }
  } finally {
    receiver.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      `Webhooks: ms per employee create (POST /employees' corridor, no HTTP) by active subscriptions; events/s delivered to a loopback receiver (median of ${ROUNDS} rounds; ${WRITES} writes, ${EVENTS} events per round)`,
      '',
      '| database | ms/write, 0 subscriptions | 1 subscription | 3 subscriptions | events/s delivered |',
      '|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
