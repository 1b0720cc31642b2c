import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { ANSWER_HEADERS } from '../platform/document-parts/response-parts';
import { ERROR_DOCS_PATH } from '../platform/errors/error-docs';

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
      responses: { '200': { description: 'The OpenAPI document.', headers: ANSWER_HEADERS, content: { 'application/json': { schema: documentSchema } } } },
    },
  },
  [ERROR_DOCS_PATH]: {
    get: {
      operationId: 'getErrorCatalogPage',
      tags: ['Documentation'],
      summary: 'The error catalog, as a page',
      description: 'Every catalogued error condition, one row each, anchored by its messageKey: what an ErrorMessage\u2019s `link` points to.',
      security: [],
      responses: { '200': { description: 'The page.', headers: ANSWER_HEADERS, content: { 'text/html': { schema: z.string() } } } },
    },
  },
  [OPENAPI_YAML_PATH]: {
    get: {
      operationId: 'getOpenApiYaml',
      tags: ['Documentation'],
      summary: 'This document, as YAML',
      security: [],
      responses: { '200': { description: 'The OpenAPI document.', headers: ANSWER_HEADERS, content: { 'application/yaml': { schema: z.string() } } } },
    },
  },
};
