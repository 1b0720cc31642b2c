import { layersOf, type CpuProfile } from '../../../bench/profile-summary';

/** bench/profile-summary.ts: each sample counted once, in the layer of the frame nearest its leaf that names one. */
const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({ id, callFrame: { functionName, url }, children });

const PROFILE: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 6, 7]),
    frame(2, 'handle', 'file:///app/node_modules/express/lib/application.js', [3]),
    frame(3, 'runPrepared', 'file:///app/dist/src/platform/db/prepared-statement.js', [4]),
    frame(4, 'query', 'file:///app/node_modules/pg/lib/client.js', [5]),
    frame(5, 'writev', ''),
    frame(6, '(idle)', ''),
    frame(7, 'emit', 'node:events'),
  ],
  // Two samples in the socket write under pg, one in pg itself, one idle, one in Node's core with no layer above it.
  samples: [5, 5, 4, 6, 7],
  timeDeltas: [1000, 1000, 2000, 5000, 3000],
};

describe('the profile summary', () => {
  it('puts each busy sample in the layer nearest its leaf, leaves idle out, and adds up to the busy time', () => {
    expect(layersOf(PROFILE)).toEqual({
      busyMs: 7,
      layers: [
        { layer: 'Node core outside the above (HTTP parsing, timers, streams)', ms: 3 },
        { layer: 'socket writes (system calls: answers, SQL sent)', ms: 2 },
        { layer: 'SQL driver (pg, pg-protocol, pg-types)', ms: 2 },
      ],
    });
  });
});
