import http from 'node:http';
import mysql from 'mysql2';
import { requiredEnv, serveUntilTerminated } from './bare-server';

/**
 * The baseline of the pay-period export: bare node:http and mysql2 streaming the same records as
 * CSV (employee code, employee id, date, hours), ordered by code and time, without classifying
 * them. No framework, no auth. Started by pay-periods.ts as its own process:
 * DATABASE_URL=mysql://... HOST=127.0.0.1 PORT=... node dist/bench/pay-periods-baseline.js
 * GET /?from=YYYY-MM-DD&to=YYYY-MM-DD streams the records counted on from..to.
 */
const SCRIPT = 'pay-periods-baseline';

function main(): void {
  const pool = mysql.createPool({
    uri: requiredEnv(SCRIPT, 'DATABASE_URL'),
    connectionLimit: 10,
    charset: 'utf8mb4',
    timezone: 'Z',
    dateStrings: true,
  });

  const server = http.createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
    const from = `${query.get('from')} 00:00:00`;
    const to = `${query.get('to')} 23:59:59`;
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
    res.write('employee_id,employee,date,hours\r\n');
    const stream = pool
      .query(
        `SELECT e.employee_id AS code, a.employee_id AS id, a.in_time_local, a.in_time_utc, a.out_time_utc
           FROM attendance a JOIN employees e ON e.id = a.employee_id
          WHERE a.in_time_local BETWEEN ? AND ? AND a.out_time_utc IS NOT NULL
          ORDER BY e.employee_id, a.in_time_utc`,
        [from, to],
      )
      .stream();
    stream.on('data', (row: { code: string; id: number; in_time_local: string; in_time_utc: string; out_time_utc: string }) => {
      const seconds = (Date.parse(`${row.out_time_utc.replace(' ', 'T')}Z`) - Date.parse(`${row.in_time_utc.replace(' ', 'T')}Z`)) / 1000;
      const line = `${row.code},${row.id},${row.in_time_local.slice(0, 10)},${(seconds / 3600).toFixed(2)}\r\n`;
      if (!res.write(line)) {
        stream.pause();
        res.once('drain', () => stream.resume());
      }
    });
    stream.on('end', () => res.end());
    stream.on('error', (error: Error) => {
      process.stderr.write(`${error.message}\n`);
      res.destroy();
    });
  });
  serveUntilTerminated(SCRIPT, server, pool);
}

main();
