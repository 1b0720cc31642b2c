import { readFileSync } from 'node:fs';
import path from 'node:path';
import { dockerfileNode } from '../../../bench/servers';

/**
 * The node flags the service runs with (Dockerfile, docs/deployment.md "Node's flags"):
 * read from the Dockerfile as the bench reads them, and the same on the
 * command `npm run start:prod` gives, so that no way of starting the build
 * runs without them.
 */
it("gives node the image's flags: no allocation-site pretenuring, the old generation's growth held to 30 % and scavenges on the main thread on the CMD, 8 MB semi-spaces in NODE_OPTIONS, the same flags from npm run start:prod", () => {
  const { nodeOptions, flags } = dockerfileNode();
  expect(flags).toEqual(['--no-allocation-site-pretenuring', '--heap-growing-percent=30', '--no-parallel-scavenge']);
  expect(nodeOptions.split(' ')).toEqual(['--max-old-space-size=1024', '--max-semi-space-size=8']);
  const { scripts } = JSON.parse(readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(scripts['start:prod']).toBe(['node', ...flags, 'dist/src/server.js'].join(' '));
});

it('preloads jemalloc, returning freed pages within a second, as the bench reads it', () => {
  const { allocator } = dockerfileNode();
  expect(allocator.LD_PRELOAD).toBe('/usr/local/lib/libjemalloc.so.2');
  expect(allocator.MALLOC_CONF.split(',')).toEqual(['background_thread:true', 'dirty_decay_ms:1000', 'muzzy_decay_ms:0']);
});
