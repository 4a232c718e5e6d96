import fs from 'node:fs';
import path from 'node:path';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Config } from '../config';
import { NotFoundError } from '../errors';
import { param } from '../http/params';
import { route } from '../http/routes';
import { COMMON_PROBLEMS, problems } from './common';
import { buildOpenApiDocument } from './document';

/** Swagger UI's files, served from the installed package: the docs page loads nothing from a CDN. */
const SWAGGER_UI = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The docs page may run its own scripts and styles; nothing else, and it may not be framed. */
const DOCS_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>HRM API documentation</title>
  <link rel="stylesheet" href="docs/swagger-ui.css">
  <link rel="icon" href="docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script src="docs/swagger-ui-standalone-preset.js"></script>
  <script src="docs/init.js"></script>
</body>
</html>
`;

// Relative URLs, so the page works under any base path and behind any proxy prefix.
const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    tryItOutEnabled: true,
    persistAuthorization: false,
  });
});
`;

/**
 * GET /openapi.json and the docs page (GET /docs) under the base path: behind the settings gate
 * like everything there, readable without a token. Documents describe the API, not its data.
 */
export function registerDocsRoutes(app: FastifyInstance, { config }: { config: Config }): void {
  const document = JSON.stringify(buildOpenApiDocument(config));
  route(app, '/openapi.json', { get: async (_request, reply) => reply.type('application/json; charset=utf-8').send(document) }, { public: true });
  route(
    app,
    '/docs',
    { get: async (_request, reply) => reply.header('Content-Security-Policy', DOCS_CSP).type('text/html; charset=utf-8').send(PAGE) },
    { public: true },
  );
  route(
    app,
    '/docs/:file',
    {
      get: async (request, reply) => {
        const file = String(param(request.params, 'file'));
        if (file === 'init.js') return reply.type('text/javascript; charset=utf-8').send(INIT);
        const type = ASSETS[file];
        if (!type) throw new NotFoundError({ detail: 'No such file' });
        // Cached by browsers for a day: these files change only with the package.
        return reply.header('Cache-Control', 'public, max-age=86400').type(type).send(fs.createReadStream(path.join(SWAGGER_UI, file)));
      },
    },
    { public: true },
  );
}

export function describeDocs(registry: OpenAPIRegistry): void {
  const tags = ['Documentation'];
  registry.registerPath({
    method: 'get',
    path: '/openapi.json',
    tags,
    summary: 'This document; no token needed',
    responses: { 200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: z.looseObject({}) } } }, ...problems(...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'get',
    path: '/docs',
    tags,
    summary: 'The documentation page (Swagger UI, served locally); no token needed',
    responses: { 200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } }, ...problems(...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'get',
    path: '/docs/{file}',
    tags,
    summary: "The documentation page's scripts and styles",
    request: { params: z.object({ file: z.string() }) },
    responses: {
      200: { description: 'A script, style sheet or icon', content: { 'text/javascript': { schema: z.string() }, 'text/css': { schema: z.string() }, 'image/png': { schema: z.string() } } },
      ...problems(404, ...COMMON_PROBLEMS),
    },
  });
}
