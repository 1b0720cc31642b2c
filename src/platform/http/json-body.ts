import express, { type RequestHandler } from 'express';
import { DomainError } from '../errors/domain-error';

export const BODY_LIMIT = '100kb';

// Compressed bodies are refused (415) rather than inflated: nothing a caller
// sends here is large enough to need it, and inflation is a decompression-bomb risk.
const parseAnyContentTypeAsJson = express.json({ limit: BODY_LIMIT, strict: true, inflate: false, type: () => true });

function sendsBody(contentLength: string | undefined, transferEncoding: string | undefined): boolean {
  return transferEncoding !== undefined || (contentLength !== undefined && contentLength !== '0');
}

/**
 * Parses a JSON body. `anyContentType` is for operations the spec declares with a
 * wildcard media type: their body is read as JSON whatever Content-Type says.
 * Elsewhere a body must be declared JSON, or it is a 415. With no body at all,
 * `request.body` stays undefined, so each operation decides what empty means.
 */
export function jsonBody(options: { anyContentType: boolean }): RequestHandler {
  return (request, response, next) => {
    if (!sendsBody(request.headers['content-length'], request.headers['transfer-encoding'])) {
      request.body = undefined;
      next();
      return;
    }
    if (!options.anyContentType && !request.is(['application/json', 'application/*+json'])) {
      throw new DomainError('UNSUPPORTED_MEDIA_TYPE');
    }
    parseAnyContentTypeAsJson(request, response, next);
  };
}
