import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { MAX_PUBLISHED_KEYS } from './login.schemas';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { z } from 'zod';
import { ConfigError, type Config } from '../platform/config';
import { readConfigFile } from '../platform/config-files';

/** The only algorithms tokens are signed or accepted with (RFC 8725: pinned, asymmetric). */
export const TOKEN_ALGORITHMS = ['ES256', 'EdDSA'] as const;
export type TokenAlgorithm = (typeof TOKEN_ALGORITHMS)[number];

const publicJwkSchema = z.looseObject({
  kid: z.string().min(1).max(128),
  kty: z.enum(['EC', 'OKP']),
  crv: z.enum(['P-256', 'Ed25519']),
  x: z.string().min(1),
  y: z.string().optional(),
  alg: z.enum(TOKEN_ALGORITHMS).optional(),
});
const privateJwkSchema = publicJwkSchema.extend({ d: z.string().min(1) });

export interface SigningKeys {
  kid: string;
  alg: TokenAlgorithm;
  privateKey: CryptoKey;
  /** Published at /.well-known/jwks.json and trusted for this service's own tokens: current first, then retired ones. */
  publicKeys: JWK[];
}

function algorithmOf(jwk: { crv: 'P-256' | 'Ed25519' }): TokenAlgorithm {
  return jwk.crv === 'P-256' ? 'ES256' : 'EdDSA';
}

/** The public half of a JWK, with only the members a verifier needs. */
function publicPart(jwk: z.infer<typeof publicJwkSchema>): JWK {
  const { kid, kty, crv, x, y } = jwk;
  return { kid, kty, crv, x, ...(y === undefined ? {} : { y }), alg: algorithmOf(jwk), use: 'sig' };
}

function readJson(file: string, variable: string): unknown {
  const text = readConfigFile(variable, file);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${variable} ${file} is not JSON: ${(error as Error).message}`);
  }
}

export async function signingKeysFromJwk(privateJwk: unknown, previous: unknown[] = [], source = 'signing key'): Promise<SigningKeys> {
  const parsed = privateJwkSchema.safeParse(privateJwk);
  if (!parsed.success) {
    throw new ConfigError(`${source} must be a private EC P-256 or Ed25519 JWK with a kid: ${parsed.error.issues[0]?.message}`);
  }
  const alg = algorithmOf(parsed.data);
  const privateKey = (await importJWK(parsed.data as JWK, alg)) as CryptoKey;
  if (previous.length >= MAX_PUBLISHED_KEYS) {
    throw new ConfigError(
      `AUTH_PREVIOUS_KEYS_FILE holds ${previous.length} keys; at most ${MAX_PUBLISHED_KEYS - 1} are published beside the signing key: drop those whose tokens have expired`,
    );
  }
  const retired = previous.map((jwk, index) => {
    const result = publicJwkSchema.safeParse(jwk);
    if (!result.success) throw new ConfigError(`AUTH_PREVIOUS_KEYS_FILE key ${index}: ${result.error.issues[0]?.message}`);
    return publicPart(result.data);
  });
  return { kid: parsed.data.kid, alg, privateKey, publicKeys: [publicPart(parsed.data), ...retired] };
}

/** A new ES256 private JWK whose kid is its RFC 7638 thumbprint. */
export async function newSigningJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as JWK);
  return { ...jwk, kid, alg: 'ES256', use: 'sig' };
}

/**
 * The key this service signs tokens with. From AUTH_SIGNING_KEY_FILE when set;
 * outside production, otherwise, a development key generated once and kept
 * under DATA_DIR so tokens survive restarts. Production without a key refuses
 * to start.
 */
export async function loadSigningKeys(config: Config): Promise<SigningKeys> {
  const previous =
    config.AUTH_PREVIOUS_KEYS_FILE === undefined
      ? []
      : z.object({ keys: z.array(z.unknown()) }).parse(readJson(config.AUTH_PREVIOUS_KEYS_FILE, 'AUTH_PREVIOUS_KEYS_FILE')).keys;

  if (config.AUTH_SIGNING_KEY_FILE !== undefined) {
    const jwk = readJson(config.AUTH_SIGNING_KEY_FILE, 'AUTH_SIGNING_KEY_FILE');
    return signingKeysFromJwk(jwk, previous, 'AUTH_SIGNING_KEY_FILE');
  }
  if (config.NODE_ENV === 'production') {
    throw new ConfigError('NODE_ENV=production needs AUTH_SIGNING_KEY_FILE (make one with `npm run key:new`)');
  }
  const devKeyFile = path.resolve(config.DATA_DIR, 'dev-signing-key.json');
  if (!existsSync(devKeyFile)) {
    mkdirSync(path.dirname(devKeyFile), { recursive: true });
    writeFileSync(devKeyFile, `${JSON.stringify(await newSigningJwk())}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(devKeyFile, 0o600);
  }
  return signingKeysFromJwk(readJson(devKeyFile, 'development key'), previous, devKeyFile);
}
