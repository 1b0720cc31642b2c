import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { errorResponses, jsonResponse } from '../document-parts/response-parts';
import { LIVENESS_PATH, READINESS_PATH } from './health.router';

const TAG = 'Operations';

const version = z.string().meta({
  description: "This build's own version (package.json and CHANGELOG.md), not the API's: the API's is the document's info.version.",
  example: '0.2.0',
});

export const healthPaths: ZodOpenApiPathsObject = {
  [LIVENESS_PATH]: {
    get: {
      operationId: 'liveness',
      tags: [TAG],
      summary: 'Liveness probe',
      description: 'The process is up. Never touches the database, so a database outage does not get every replica restarted.',
      security: [],
      responses: { '200': jsonResponse('Alive.', z.strictObject({ status: z.literal('UP'), version }).meta({ id: 'Liveness' })) },
    },
  },
  [READINESS_PATH]: {
    get: {
      operationId: 'readiness',
      tags: [TAG],
      summary: 'Readiness probe',
      description:
        'The database answers within HEALTH_DATABASE_TIMEOUT_MS and the process is not shutting down; otherwise 503, so the load balancer sends traffic elsewhere.',
      security: [],
      responses: {
        '200': jsonResponse('Ready for traffic.', z.strictObject({ status: z.literal('UP'), database: z.literal('UP'), version }).meta({ id: 'Readiness' })),
        ...errorResponses(['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']),
      },
    },
  },
};
