import type { RequestHandler } from 'express';
import { DomainError } from '../platform/errors/domain-error';
import { authOf, locationOf } from '../platform/http/request-context';
import { ALL_LOCATIONS } from './scopes';

/** The token must entitle its bearer to the request's location; runs after the location header is read. */
export function requireLocationEntitlement(): RequestHandler {
  return (request, _response, next) => {
    const { locations } = authOf(request);
    if (!locations.includes(ALL_LOCATIONS) && !locations.includes(locationOf(request))) {
      throw new DomainError('LOCATION_NOT_PERMITTED');
    }
    next();
  };
}
