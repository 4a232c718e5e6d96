import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { COMMON_PROBLEMS, problems } from '../http/openapi';
import { DOCS_FILES } from './routes';

export function describeDocs(registry: OpenAPIRegistry): void {
  const tags = ['Documentation'];
  registry.registerPath({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tags,
    summary: 'This document; no token needed',
    responses: {
      200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: z.looseObject({}) } } },
      ...problems(...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/docs',
    operationId: 'getDocsPage',
    tags,
    summary: 'The documentation page (Swagger UI, served locally); no token needed',
    responses: {
      200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } },
      301: { description: "Asked as `/docs/`: `Location: ../docs`, the page's own address" },
      ...problems(...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/docs/{file}',
    operationId: 'getDocsFile',
    tags,
    summary: "The documentation page's scripts and styles",
    request: { params: z.object({ file: z.enum(DOCS_FILES as [string, ...string[]]) }) },
    responses: {
      200: {
        description: 'A script, style sheet or icon',
        content: { 'text/javascript': { schema: z.string() }, 'text/css': { schema: z.string() }, 'image/png': { schema: z.string() } },
      },
      ...problems(404, ...COMMON_PROBLEMS),
    },
  });
}
