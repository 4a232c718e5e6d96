import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { COMMON_PROBLEMS, problems } from '../http/openapi';

export function describeEcho(registry: OpenAPIRegistry, options: { public: boolean }): void {
  registry.registerPath({
    method: 'get',
    path: '/echo',
    operationId: 'echo',
    tags: ['Service'],
    ...(options.public ? {} : { security: [{ bearer: [] }] }),
    summary: `Proves routing works and the API is enabled${options.public ? '; no token needed' : ''}`,
    responses: {
      200: {
        description: 'Echo and a random number',
        content: { 'text/plain': { schema: z.string().max(20).meta({ example: 'Echo 1804289383' }) } },
      },
      ...problems(...(options.public ? [] : [401]), ...COMMON_PROBLEMS),
    },
  });
}
