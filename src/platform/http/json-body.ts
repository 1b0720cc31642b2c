import express, { type Request, type RequestHandler, type Response } from 'express';
import { DomainError } from '../errors/domain-error';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';

export const BODY_LIMIT = '100kb';

/** body-parser's error `type`s for what the check below refuses; the error handler maps them. */
export const JSON_TOO_DEEP_TYPE = 'entity.too.deep';

/**
 * Runs on the raw bytes before they are parsed: only UTF-8 is read (the
 * depth check reads bytes as UTF-8, and the document declares nothing else),
 * and nesting past MAX_JSON_DEPTH is refused before anything recursive sees it.
 */
function checkBeforeParsing(_request: unknown, _response: unknown, body: Buffer, encoding: string): void {
  if (encoding.toLowerCase() !== 'utf-8') throw Object.assign(new Error('only UTF-8 is read'), { type: 'charset.unsupported' });
  if (exceedsJsonDepth(body, MAX_JSON_DEPTH)) throw Object.assign(new Error('nested too deep'), { type: JSON_TOO_DEEP_TYPE });
}

// Compressed bodies are refused (415) rather than inflated: nothing a caller
// sends here is large enough to need it, and inflation is a decompression-bomb risk.
const parseAnyContentTypeAsJson = express.json({
  limit: BODY_LIMIT,
  strict: true,
  inflate: false,
  type: () => true,
  verify: checkBeforeParsing,
});

function sendsBody(contentLength: string | undefined, transferEncoding: string | undefined): boolean {
  return transferEncoding !== undefined || (contentLength !== undefined && contentLength !== '0');
}

/**
 * Reads a JSON body into `request.body`. `anyContentType` is for operations
 * the spec declares with a wildcard media type: their body is read as JSON
 * whatever Content-Type says. Elsewhere a body must be declared JSON, or it is
 * a 415. With no body at all, `request.body` stays undefined, so each
 * operation decides what empty means. Rejects with what the error handler maps.
 */
export function readJsonBody(request: Request, response: Response, options: { anyContentType: boolean }): Promise<void> {
  if (!sendsBody(request.headers['content-length'], request.headers['transfer-encoding'])) {
    request.body = undefined;
    return Promise.resolve();
  }
  if (!options.anyContentType && !request.is(['application/json', 'application/*+json'])) {
    return Promise.reject(new DomainError('UNSUPPORTED_MEDIA_TYPE'));
  }
  return new Promise((resolve, reject) => {
    parseAnyContentTypeAsJson(request, response, (error?: unknown) => (error === undefined ? resolve() : reject(error)));
  });
}

/** readJsonBody as middleware, for the routes that are not /v1 operations (the token endpoint). */
export function jsonBody(options: { anyContentType: boolean }): RequestHandler {
  return (request, response, next) => {
    readJsonBody(request, response, options).then(() => next(), next);
  };
}
