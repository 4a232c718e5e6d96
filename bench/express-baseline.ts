import express from 'express';
import mysql from 'mysql2';

/**
 * The Express 5 baseline for GET /employees/me: a bare Express app (its defaults, one route) doing
 * the same single primary-key lookup as the ceiling (ceiling-server.ts) and answering it with
 * `res.json`. The server under test runs on Express 5 too; this shows what the framework alone
 * costs, and what the server wins back inside it. Started by run.ts as its own process:
 * DATABASE_URL=mysql://... HOST=127.0.0.1 PORT=... EMPLOYEE_ID=... node dist/bench/express-baseline.js
 */
function main(): void {
  const employeeId = Number(requiredEnv('EMPLOYEE_ID'));
  // The same pool size and connection options as the server under test (src/db/connect.ts).
  const pool = mysql.createPool({
    uri: requiredEnv('DATABASE_URL'),
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
  const server = app.listen(Number(requiredEnv('PORT')), requiredEnv('HOST'));

  process.once('SIGTERM', () => {
    server.close(() => pool.end(() => undefined));
    server.closeIdleConnections();
  });
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`express-baseline needs ${name}`);
  return value;
}

main();
