import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Huge pages for the sized server's shared memory (`--huge-pages`): the
 * kernel's pool of 2 MB pages is grown by what shared_buffers needs, and
 * given back when the run ends, whatever way it ends, because every page in
 * the pool is memory nothing else on the machine can use (CI runs here
 * after the bench). PostgreSQL then maps shared_buffers with huge_pages=on:
 * with 4 kB pages, a backend touching buffers across gigabytes of shared
 * memory misses the processor's TLB far more often (docs/performance.md,
 * Growth). Writing the pool takes root.
 */
const POOL = '/proc/sys/vm/nr_hugepages';
const HUGE_PAGE_BYTES = 2 * 1024 * 1024;
/**
 * Shared memory beyond shared_buffers: the buffer descriptors (about 1.5 %
 * of it), the lock tables, pg_stat_statements' entries. 512 MB covers them
 * at max_connections 100; pages left over are given back with the rest.
 */
const OVERHEAD_BYTES = 512 * 1024 * 1024;

export interface HugePages {
  /** Gives the pages back to the kernel: the pool is as it was before the run. */
  release(): void;
}

/** `512MB`, `16GB` (the --shared-buffers form) in bytes. */
export function sizeInBytes(size: string): number {
  const match = /^(\d+)(MB|GB)$/.exec(size);
  if (match === null) throw new Error(`not a size such as 512MB or 16GB: ${size}`);
  return Number(match[1]) * 1024 * 1024 * (match[2] === 'GB' ? 1024 : 1);
}

/** Pages in the kernel's pool (HugePages_Total); the pool may hold fewer than were asked for. */
function poolPages(): number {
  return Number(/^HugePages_Total:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0);
}

/**
 * Free memory in runs of 2 MB, for the pool to take: the clean page cache
 * dropped and free pages compacted. Only clean, reclaimable memory goes.
 */
function makeRoomForHugePages(): void {
  writeFileSync('/proc/sys/vm/drop_caches', '3');
  writeFileSync('/proc/sys/vm/compact_memory', '1');
}

/** Grows the pool by what `sharedBuffers` needs; throws, having given back what it took, when the kernel has not that many. */
export function reserveHugePages(sharedBuffers: string): HugePages {
  const before = poolPages();
  const pages = Math.ceil((sizeInBytes(sharedBuffers) * 1.015 + OVERHEAD_BYTES) / HUGE_PAGE_BYTES);
  const release = () => writeFileSync(POOL, String(before));
  try {
    writeFileSync(POOL, String(before + pages));
    // A machine that has run for a while has its free memory in pieces (the page cache between them).
    if (poolPages() - before < pages) {
      makeRoomForHugePages();
      writeFileSync(POOL, String(before + pages));
    }
  } catch (error) {
    throw new Error(`--huge-pages: cannot grow ${POOL} (it takes root): ${(error as Error).message}`, { cause: error });
  }
  const got = poolPages() - before;
  if (got < pages) {
    release();
    throw new Error(`--huge-pages: the kernel found ${got} of ${pages} free 2 MB pages; free memory, or run without --huge-pages`);
  }
  // A run stopped by a signal or an uncaught error still gives the pages back.
  process.once('exit', release);
  return {
    release() {
      process.off('exit', release);
      release();
    },
  };
}
