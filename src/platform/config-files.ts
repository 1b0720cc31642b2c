import { readFileSync } from 'node:fs';
import { ConfigError } from './config';

/**
 * Why a file named by a setting cannot be read, as an operator can act on it:
 * a file made 0600 by root and mounted into the container, where the service
 * runs as uid 1000, is the usual case (docs: deployment, secrets' files).
 */
export function unreadableFileMessage(variable: string, file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = error instanceof Error ? error.message : String(error);
  if (code === 'EACCES') {
    const uid = process.getuid?.() ?? 'unknown';
    return `${variable} ${file} cannot be read: the service runs as uid ${uid}, which may not read it. Make it readable by that user (chown ${uid} ${file}, or give a group it belongs to read access with chmod 640), keeping it from everyone else.`;
  }
  if (code === 'ENOENT') return `${variable} ${file} does not exist: ${reason}`;
  return `${variable} ${file} cannot be read: ${reason}`;
}

/** The text of a file named by a setting; a ConfigError naming the setting, the file and the fix when it cannot be read. */
export function readConfigFile(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(unreadableFileMessage(variable, file, error));
  }
}
