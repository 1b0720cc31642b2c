import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

/**
 * The embedded database (PGlite) is one process's: two processes opening
 * the same folder each keep their own copy in memory and write over each
 * other's files, so one of them silently loses its writes. The first process
 * takes this lock file (its pid and host, created exclusively); a second is
 * refused with a message naming the folder and the holder. A lock left by a
 * process that is gone (killed, crashed) is taken over.
 */
const LOCK_FILE_NAME = 'service.lock';

interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

/** The lock files this process holds: its own pid in a lock file is stale unless it is one of these (a container restarts as pid 1 again). */
const held = new Set<string>();

class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

/** Whether a process with this pid runs on this host (EPERM: it runs, as another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    return typeof holder.pid === 'number' && typeof holder.host === 'string' ? (holder as LockHolder) : undefined;
  } catch {
    // Unreadable or half-written: the holder died while writing it.
    return undefined;
  }
}

function tryCreate(file: string, holder: LockHolder): boolean {
  try {
    const descriptor = openSync(file, 'wx', 0o600);
    try {
      writeSync(descriptor, JSON.stringify(holder));
    } finally {
      closeSync(descriptor);
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Takes the folder's lock for this process; answers the function that gives it back. */
export function lockDataDir(directory: string): () => void {
  const file = path.join(directory, LOCK_FILE_NAME);
  const self: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  // Twice at most: once, and once more after clearing a stale lock.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (!held.has(file) && tryCreate(file, self)) {
      held.add(file);
      const release = () => {
        held.delete(file);
        rmSync(file, { force: true });
      };
      // A process that ends without closing the database (an uncaught error, process.exit) still gives it back.
      process.once('exit', release);
      return () => {
        process.removeListener('exit', release);
        release();
      };
    }
    if (held.has(file)) {
      throw new DataDirLockedError(`The embedded database in ${directory} is already open in this process; close it before opening it again.`);
    }
    const holder = readHolder(file);
    if (holder !== undefined && holder.host !== self.host) {
      throw new DataDirLockedError(
        `The embedded database in ${directory} is in use by process ${holder.pid} on host ${holder.host} (since ${holder.since}). One process may open it at a time; for several, use a PostgreSQL server (DATABASE_URL). If that process is gone, delete ${file}.`,
      );
    }
    // Its own pid in the file is a restarted process's: the earlier one is gone.
    if (holder !== undefined && holder.pid !== process.pid && isRunning(holder.pid)) {
      throw new DataDirLockedError(
        `The embedded database in ${directory} is in use by process ${holder.pid} (since ${holder.since}). One process may open it at a time: stop that one first, or use a PostgreSQL server (DATABASE_URL) for several.`,
      );
    }
    // Its holder is gone: stale.
    rmSync(file, { force: true });
  }
  throw new DataDirLockedError(`Could not take the lock ${file}: another process took it at the same moment.`);
}
