import fs from 'node:fs';
import path from 'node:path';
import type { Request, Response } from 'express';
import { NotFoundError } from '../errors';
import { instanceOf } from '../http/context';
import { Routes } from '../http/routes';
import { sendJsonText, sendText } from '../http/send';
import type { OpenApiDocument } from '../http/openapi';

/** Swagger UI's files, served from the installed package: the docs page loads nothing from a CDN. */
const SWAGGER_UI = path.dirname(require.resolve('swagger-ui-dist/package.json'));
// A Map, not an object literal: a name like "constructor" must not find Object.prototype's.
const ASSETS = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['swagger-ui-standalone-preset.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
]);
/** Every file the page loads from <base>/docs/<file>: the package's and its own init.js. */
export const DOCS_FILES = ['init.js', ...ASSETS.keys()];

/** The docs page may run its own scripts and styles; nothing else, and it may not be framed. */
const DOCS_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

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
    // Drawing every operation and model of the 600 kB document took 19 s: tags start closed,
    // models are not drawn, and a tag's operations are drawn when it is opened (or filtered to).
    docExpansion: 'none',
    defaultModelsExpandDepth: -1,
    filter: true,
    // Swagger UI's default shows a badge loaded from validator.swagger.io, sending it this
    // document's address: the page talks to its own origin only.
    validatorUrl: null,
  });
});
`;

/**
 * GET /openapi.json and the docs page (GET /docs) under the base path: behind the settings gate
 * like everything there, readable without a token (app.ts mounts them before requireBearer).
 * Documents describe the API, not its data. `document` gives the one built per process
 * (openApiDocumentFor); it is first asked for by a request, so a server or worker starts without
 * building it.
 */
export function docsRoutes({ document }: { document: () => OpenApiDocument }): Routes[] {
  // Swagger UI's files, read once when first asked for (about 1.5 MB in all).
  const assets = new Map<string, Promise<Buffer>>();
  const openapi = new Routes('/openapi.json').route('/', {
    get: (req, res) => {
      const name = instanceOf(req).name;
      // Cloud: the server variable defaults to the instance asking, so "try it" on its docs page
      // calls that instance rather than the example name.
      sendJsonText(res, name === undefined ? jsonOf(document()) : JSON.stringify(withDefaultInstance(document(), name)));
    },
  });
  const page = new Routes('/docs')
    .route('/', {
      get: (req: Request, res: Response) => {
        // The page's URLs are relative to <base>/docs; at <base>/docs/ (trailing slashes are
        // accepted) they would miss, so that address sends the browser to the page's own.
        if (req.originalUrl.split('?')[0]?.endsWith('/')) {
          res.statusCode = 301;
          res.setHeader('Location', '../docs');
          return void res.end();
        }
        res.setHeader('Content-Security-Policy', DOCS_CSP);
        sendText(res, 200, 'text/html; charset=utf-8', PAGE);
      },
    })
    .route('/:file', {
      get: async (req, res) => {
        const file = String(req.params.file);
        if (file === 'init.js') return sendText(res, 200, 'text/javascript; charset=utf-8', INIT);
        const type = ASSETS.get(file);
        if (!type) throw new NotFoundError({ detail: 'No such file' });
        let content = assets.get(file);
        if (!content) assets.set(file, (content = fs.promises.readFile(path.join(SWAGGER_UI, file))));
        const bytes = await content;
        // Cached by browsers for a day: these files change only with the package.
        res.setHeader('Cache-Control', 'public, max-age=86400');
        res.setHeader('Content-Type', type);
        res.setHeader('Content-Length', bytes.length);
        res.end(bytes);
      },
    });
  return [openapi, page];
}

// The text of each (shared, frozen) document, written once for every app that serves it.
const texts = new WeakMap<OpenApiDocument, string>();
function jsonOf(document: OpenApiDocument): string {
  let text = texts.get(document);
  if (text === undefined) texts.set(document, (text = JSON.stringify(document)));
  return text;
}

function withDefaultInstance(document: OpenApiDocument, name: string): OpenApiDocument {
  const servers = document.servers?.map((server) => ({
    ...server,
    variables: {
      ...server.variables,
      instance: { description: 'The instance (customer) name', ...server.variables?.instance, default: name },
    },
  }));
  return { ...document, servers };
}
