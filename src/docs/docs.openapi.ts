import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';

export const OPENAPI_JSON_PATH = '/openapi.json';
export const OPENAPI_YAML_PATH = '/openapi.yaml';
export const DOCS_PATH = '/docs';

const documentSchema = z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) });

export const docsPaths: ZodOpenApiPathsObject = {
  [OPENAPI_JSON_PATH]: {
    get: {
      operationId: 'getOpenApiJson',
      tags: ['Documentation'],
      summary: 'This document, as JSON',
      description: `The interactive reference page is at ${DOCS_PATH}.`,
      security: [],
      responses: { '200': { description: 'The OpenAPI document.', content: { 'application/json': { schema: documentSchema } } } },
    },
  },
  [OPENAPI_YAML_PATH]: {
    get: {
      operationId: 'getOpenApiYaml',
      tags: ['Documentation'],
      summary: 'This document, as YAML',
      security: [],
      responses: { '200': { description: 'The OpenAPI document.', content: { 'application/yaml': { schema: z.string() } } } },
    },
  },
};
