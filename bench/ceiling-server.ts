import http from 'node:http';
import mysql from 'mysql2';
import { requiredEnv, serveUntilTerminated } from './bare-server';

/**
 * The practical ceiling for GET /employees/me on this machine: bare node:http and mysql2 doing
 * only the one primary-key lookup that endpoint ultimately needs, and answering it as JSON. No
 * framework, no auth, no logging. Started by run.ts as its own process:
 * DATABASE_URL=mysql://... HOST=127.0.0.1 PORT=... EMPLOYEE_ID=... node dist/bench/ceiling-server.js
 */
const SCRIPT = 'ceiling-server';

function main(): void {
  const employeeId = Number(requiredEnv(SCRIPT, 'EMPLOYEE_ID'));
  // The same pool size and connection options as the server under test (src/db/connect.ts).
  const pool = mysql.createPool({
    uri: requiredEnv(SCRIPT, 'DATABASE_URL'),
    connectionLimit: 10,
    charset: 'utf8mb4',
    timezone: 'Z',
    dateStrings: true,
  });

  const server = http.createServer((_req, res) => {
    pool.query('SELECT * FROM employees WHERE id = ?', [employeeId], (error, rows) => {
      const row = Array.isArray(rows) ? rows[0] : undefined;
      const status = error ? 500 : row ? 200 : 404;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(row ?? { error: error ? 'query failed' : 'not found' }));
      if (error) process.stderr.write(`${error.message}\n`);
    });
  });
  serveUntilTerminated(SCRIPT, server, pool);
}

main();
