import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from './config';
import { buildOpenApiDocument } from './openapi';

/** npm run openapi: writes docs/openapi.json for the default configuration (base path /app/api). */
const target = path.join(__dirname, '..', '..', 'docs', 'openapi.json');
fs.writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(loadConfig({})), null, 2)}\n`);
process.stdout.write(`Wrote ${path.relative(process.cwd(), target)}\n`);
