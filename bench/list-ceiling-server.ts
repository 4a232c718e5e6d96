import http from 'node:http';
import mysql from 'mysql2';
import { requiredEnv, serveUntilTerminated } from './bare-server';

/**
 * The practical ceiling for GET /employees?limit=50 (page 1, as the admin) on this machine: bare
 * node:http and mysql2 sending the list's own rows query, the SQL and values the server sends for
 * that page (run.ts compiles them with the server's own list module), and answering the rows as
 * `{"data", "total", "nextPage"}` with JSON.stringify. The total is counted once at start (the
 * server keeps its count for 2 seconds). No framework, no auth, no logging, no shaping of the
 * rows into the read shape. Like the /employees/me ceiling it sends the query as text (mysql2
 * `query`); with LIST_PREPARED=1 as a prepared statement (mysql2 `execute`), as the server does.
 * Started by run.ts as its own process:
 * DATABASE_URL=mysql://... HOST=127.0.0.1 PORT=... LIST_SQL=... LIST_VALUES='[1,"51"]' LIST_LIMIT=50 node dist/bench/list-ceiling-server.js
 */
const SCRIPT = 'list-ceiling-server';

function main(): void {
  const sql = requiredEnv(SCRIPT, 'LIST_SQL');
  const prepared = process.env.LIST_PREPARED === '1';
  const sent = JSON.parse(requiredEnv(SCRIPT, 'LIST_VALUES')) as unknown[];
  // The text protocol writes the values into the SQL, where LIMIT takes only a number.
  const values = prepared ? sent : sent.map((value) => (typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value));
  const limit = Number(requiredEnv(SCRIPT, 'LIST_LIMIT'));
  // The same pool size and connection options as the server under test (src/db/connect.ts).
  const pool = mysql.createPool({
    uri: requiredEnv(SCRIPT, 'DATABASE_URL'),
    connectionLimit: 10,
    charset: 'utf8mb4',
    timezone: 'Z',
    dateStrings: true,
  });

  pool.query('SELECT COUNT(*) AS total FROM employees', (countError, counted) => {
    if (countError) throw countError;
    const total = Number((counted as Array<{ total: number }>)[0]?.total);
    const server = http.createServer((_req, res) => {
      const answer = (error: Error | null, rows: unknown) => {
        if (error || !Array.isArray(rows)) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: 'query failed' }));
          if (error) process.stderr.write(`${error.message}\n`);
          return;
        }
        // With its length, as the server sends its answers (src/http/send.ts): a long body
        // without one goes out in chunks, which cost this process more than the JSON did.
        const json = JSON.stringify({ data: rows.slice(0, limit), total, nextPage: rows.length > limit ? 2 : null });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
        res.end(json);
      };
      if (prepared) pool.execute(sql, values as Array<string | number>, answer);
      else pool.query(sql, values, answer);
    });
    serveUntilTerminated(SCRIPT, server, pool);
  });
}

main();
