import http from 'node:http';
import express from 'express';
import mysql from 'mysql2';
import { requiredEnv, serveUntilTerminated } from './bare-server';

/**
 * The Express 5 baseline for GET /employees/me: a bare Express app (its defaults, one route) doing
 * the same single primary-key lookup as the ceiling (ceiling-server.ts) and answering it with
 * `res.json`. The server under test runs on Express 5 too; this shows what the framework alone
 * costs, and what the server wins back inside it. Started by run.ts as its own process:
 * DATABASE_URL=mysql://... HOST=127.0.0.1 PORT=... EMPLOYEE_ID=... node dist/bench/express-baseline.js
 */
const SCRIPT = 'express-baseline';

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

  const app = express();
  app.get('/employees/me', (_req, res) => {
    pool.query('SELECT * FROM employees WHERE id = ?', [employeeId], (error, rows) => {
      const row = Array.isArray(rows) ? rows[0] : undefined;
      res.status(error ? 500 : row ? 200 : 404).json(row ?? { error: error ? 'query failed' : 'not found' });
      if (error) process.stderr.write(`${error.message}\n`);
    });
  });
  serveUntilTerminated(SCRIPT, http.createServer(app), pool);
}

main();
