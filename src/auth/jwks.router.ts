import { Router } from 'express';
import type { JWK } from 'jose';

export const JWKS_PATH = '/.well-known/jwks.json';

/** The public keys this service's tokens are signed with, for other replicas and services to verify them. */
export function jwksRouter(publicKeys: readonly JWK[]): Router {
  const router = Router();
  const body = { keys: publicKeys };
  router.get(JWKS_PATH, (_request, response) => {
    response.setHeader('Cache-Control', 'public, max-age=300');
    response.status(200).json(body);
  });
  return router;
}
