import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { ERROR_DOCS_PATH } from '../platform/errors/error-docs';
import { errorCatalogPage } from './error-catalog-page';
import { documentYaml } from './openapi-yaml';
import { DOCS_PATH, OPENAPI_JSON_PATH, OPENAPI_YAML_PATH } from './docs.openapi';
import { onFirstUse } from '../platform/on-first-use';
import type { OpenApiDocument } from './openapi-document';
import { documentWithSamples } from './request-samples';

/**
 * The docs page loads only this service's own files (Swagger UI from its npm
 * package): it must work offline and must not leak a pasted token elsewhere.
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // Swagger UI sets element styles at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Customer Payment Profiles API</title>
    <link rel="stylesheet" type="text/css" href="./swagger-ui.css">
    <link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="./swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="./docs-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;

/** The document as the page shows it: with a request sample per operation (request-samples.ts). */
const REFERENCE_JSON_PATH = `${DOCS_PATH}/reference.json`;

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
// BaseLayout: no top bar (its box to load another document's address), so the operations come first.
const DOCS_INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(REFERENCE_JSON_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: false,
    oauth2RedirectUrl: window.location.origin + ${JSON.stringify(`${DOCS_PATH}/oauth2-redirect.html`)},
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
};
`;

// Resolved by file, not by `require('swagger-ui-dist')`, which would load the browser bundle into the server.
const SWAGGER_UI_DIRECTORY = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const SWAGGER_UI_FILES = new Set([
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'oauth2-redirect.html',
  'oauth2-redirect.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
]);

const docsSecurityHeaders: RequestHandler = (_request, response, next) => {
  response.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
  next();
};

/**
 * GET /openapi.json, /openapi.yaml and the interactive reference page at /docs.
 * The document, and each form of it, is made on its first request, not at
 * start-up: building it and writing the YAML are costly in CPU and memory
 * (docs/performance.md), and most replicas (and every test app) never serve it.
 */
export function openApiRouter(document: () => OpenApiDocument): Router {
  const router = Router();
  const json = onFirstUse(() => JSON.stringify(document()));
  const yaml = onFirstUse(() => documentYaml(document()));
  const reference = onFirstUse(() => JSON.stringify(documentWithSamples(document())));

  router.get(OPENAPI_JSON_PATH, (_request, response) => {
    response.type('application/json').send(json());
  });
  router.get(OPENAPI_YAML_PATH, (_request, response) => {
    response.type('application/yaml').send(yaml());
  });

  router.use(DOCS_PATH, docsSecurityHeaders);
  router.get(DOCS_PATH, (request, response) => {
    // Relative asset paths need the trailing slash.
    if (!request.path.endsWith('/')) return response.redirect(301, `${DOCS_PATH}/`);
    response.type('html').send(DOCS_PAGE);
  });
  const errorsPage = onFirstUse(errorCatalogPage);
  router.get(ERROR_DOCS_PATH, (_request, response) => {
    response.type('html').send(errorsPage());
  });
  router.get(REFERENCE_JSON_PATH, (_request, response) => {
    response.type('application/json').send(reference());
  });
  router.get(`${DOCS_PATH}/docs-initializer.js`, (_request, response) => {
    response.type('text/javascript').send(DOCS_INITIALIZER);
  });
  const assets = express.static(SWAGGER_UI_DIRECTORY, { index: false, fallthrough: true, maxAge: '1h' });
  router.use(DOCS_PATH, (request, response, next) => {
    if (!SWAGGER_UI_FILES.has(request.path.slice(1))) return next();
    assets(request, response, next);
  });
  return router;
}
