import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type Config } from './config';

/** fs.accessSync's shape: the tests, which run as root (whom no permission stops), pass one that refuses as a service user's would. */
type Access = (file: string, mode: number) => void;

/**
 * Why a file named by a setting cannot be read, as an operator can act on it:
 * a file made 0600 by root and mounted into the container, where the service
 * runs as uid 1000, is the usual case (docs: deployment, secrets' files).
 */
export function unreadableFileMessage(variable: string, file: string, error: unknown, access: Access = accessSync): string {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = error instanceof Error ? error.message : String(error);
  if (code === 'EACCES') {
    const uid = process.getuid?.() ?? 'unknown';
    const folder = folderNotEntered(file, access);
    if (folder !== undefined) {
      return `${variable} ${file} cannot be read: the service runs as uid ${uid}, which may not enter the folder ${folder} (the key tools make their folders 0700). Let that user enter it (chown ${uid} ${folder}, or chmod 750 ${folder} with a group it belongs to), or keep the file elsewhere; the file itself must be readable by that user too.`;
    }
    return `${variable} ${file} cannot be read: the service runs as uid ${uid}, which may not read it. Make it readable by that user (chown ${uid} ${file}, or give a group it belongs to read access with chmod 640), keeping it from everyone else.`;
  }
  if (code === 'ENOENT') return `${variable} ${file} does not exist: ${reason}`;
  return `${variable} ${file} cannot be read: ${reason}`;
}

/** The first folder on the way to a file that this process may not enter (search), if any. */
function folderNotEntered(file: string, access: Access): string | undefined {
  const folders: string[] = [];
  for (let folder = path.dirname(path.resolve(file)); !folders.includes(folder); folder = path.dirname(folder)) folders.unshift(folder);
  return folders.find((folder) => {
    try {
      access(folder, constants.X_OK);
      return false;
    } catch (error) {
      // A folder that is missing is not one the service is kept out of: the file's own error says so.
      return (error as NodeJS.ErrnoException).code === 'EACCES';
    }
  });
}

/** The settings naming a file the service reads as it starts. */
const FILE_SETTINGS = ['AUTH_SIGNING_KEY_FILE', 'AUTH_PREVIOUS_KEYS_FILE', 'SECRETS_ENCRYPTION_KEY_FILE', 'AUTH_CLIENTS_FILE'] as const;

/**
 * Every file a setting names that cannot be read, checked before any is
 * loaded: one failed start names them all, where reading them in turn
 * stopped at the first (an operator fixing permissions learnt one per restart).
 */
export function refuseUnreadableConfigFiles(config: Pick<Config, (typeof FILE_SETTINGS)[number]>, access: Access = accessSync): void {
  const problems = FILE_SETTINGS.flatMap((variable) => {
    const file = config[variable];
    if (file === undefined) return [];
    try {
      access(file, constants.R_OK);
      return [];
    } catch (error) {
      return [unreadableFileMessage(variable, file, error, access)];
    }
  });
  if (problems.length === 1) throw new ConfigError(problems[0]);
  if (problems.length > 1) throw new ConfigError(`${problems.length} files cannot be read:\n${problems.map((problem) => `- ${problem}`).join('\n')}`);
}

/** The text of a file named by a setting; a ConfigError naming the setting, the file and the fix when it cannot be read. */
export function readConfigFile(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(unreadableFileMessage(variable, file, error));
  }
}
