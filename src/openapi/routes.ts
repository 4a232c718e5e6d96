import fs from 'node:fs';
import path from 'node:path';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Config } from '../config';
import { NotFoundError } from '../errors';
import { instanceOf } from '../http/context';
import { sendJsonText } from '../http/json-text';
import { param } from '../http/params';
import { route } from '../http/routes';
import { COMMON_PROBLEMS, problems } from './common';
import { buildOpenApiDocument, type OpenApiDocument } from './document';

/** Swagger UI's files, served from the installed package: the docs page loads nothing from a CDN. */
const SWAGGER_UI = path.dirname(require.resolve('swagger-ui-dist/package.json'));
// A Map, not an object literal: a name like "constructor" must not find Object.prototype's.
const ASSETS = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['swagger-ui-standalone-preset.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
]);

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
    // Swagger UI's default shows a badge loaded from validator.swagger.io, sending it this
    // document's address: the page talks to its own origin only.
    validatorUrl: null,
  });
});
`;

/**
 * GET /openapi.json and the docs page (GET /docs) under the base path: behind the settings gate
 * like everything there, readable without a token. Documents describe the API, not its data.
 */
export function registerDocsRoutes(app: FastifyInstance, { config }: { config: Config }): void {
  const built = buildOpenApiDocument(config);
  const document = JSON.stringify(built);
  route(
    app,
    '/openapi.json',
    {
      get: async (request, reply) => {
        const name = instanceOf(request).name;
        // Cloud: the server variable defaults to the instance asking, so "try it" on its docs page
        // calls that instance rather than the example name.
        const body = name === undefined ? document : JSON.stringify(withDefaultInstance(built, name));
        return sendJsonText(reply, body);
      },
    },
    { public: true },
  );
  route(
    app,
    '/docs',
    {
      get: async (request, reply) => {
        // The page's URLs are relative to <base>/docs; at <base>/docs/ (trailing slashes are
        // accepted) they would miss, so that address sends the browser to the page's own.
        if (request.url.split('?')[0]?.endsWith('/')) return reply.redirect('../docs', 301);
        return reply.header('Content-Security-Policy', DOCS_CSP).type('text/html; charset=utf-8').send(PAGE);
      },
    },
    { public: true },
  );
  route(
    app,
    '/docs/:file',
    {
      get: async (request, reply) => {
        const file = String(param(request.params, 'file'));
        if (file === 'init.js') return reply.type('text/javascript; charset=utf-8').send(INIT);
        const type = ASSETS.get(file);
        if (!type) throw new NotFoundError({ detail: 'No such file' });
        // Cached by browsers for a day: these files change only with the package.
        return reply.header('Cache-Control', 'public, max-age=86400').type(type).send(fs.createReadStream(path.join(SWAGGER_UI, file)));
      },
    },
    { public: true },
  );
}

function withDefaultInstance(document: OpenApiDocument, name: string): OpenApiDocument {
  const servers = document.servers?.map((server) => ({
    ...server,
    variables: { ...server.variables, instance: { description: 'The instance (customer) name', ...server.variables?.instance, default: name } },
  }));
  return { ...document, servers };
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
    responses: {
      200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } },
      301: { description: 'Asked as `/docs/`: `Location: ../docs`, the page\'s own address' },
      ...problems(...COMMON_PROBLEMS),
    },
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
