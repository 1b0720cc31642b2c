import type { RequestHandler } from 'express';
import { DomainError } from '../errors/domain-error';

export function routeNotFound(): RequestHandler {
  return () => {
    throw new DomainError('ROUTE_NOT_FOUND');
  };
}
