import { mkdirSync } from 'node:fs';
import path from 'node:path';

/** Where the CLIs put an operator's secrets files: git-ignored, and what docker-compose.yml mounts. */
export const SECRETS_FOLDER = 'deploy/secrets';

/**
 * Where a CLI writes a secrets file named on its command line: a bare name
 * (no folder) goes into deploy/secrets/ under the project (made, readable by
 * its owner only, if missing), so a key is never left one `git add .` from a
 * commit; a path is taken as it is.
 */
export function secretsFilePath(name: string): string {
  if (path.basename(name) !== name) return name;
  mkdirSync(SECRETS_FOLDER, { recursive: true, mode: 0o700 });
  return path.join(SECRETS_FOLDER, name);
}
