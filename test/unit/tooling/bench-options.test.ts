import { sizeInBytes } from '../../../bench/huge-pages';
import { parseBenchOptions } from '../../../bench/options';

describe("the benchmark's sized server options", () => {
  it('reads --shared-buffers in MB and GB, and refuses any other form', () => {
    expect(sizeInBytes('512MB')).toBe(512 * 1024 * 1024);
    expect(sizeInBytes('16GB')).toBe(16 * 1024 * 1024 * 1024);
    expect(() => parseBenchOptions(['--growth', '--shared-buffers', '16G'])).toThrow('--shared-buffers must be a size such as 512MB or 8GB');
    expect(parseBenchOptions(['--growth', '--shared-buffers', '16GB']).sharedBuffers).toBe('16GB');
  });

  it('takes --huge-pages only for the cluster of --shared-buffers (the shared server is never reconfigured)', () => {
    expect(() => parseBenchOptions(['--growth', '--huge-pages'])).toThrow('--huge-pages is for the cluster of --shared-buffers');
    expect(parseBenchOptions(['--growth', '--shared-buffers', '16GB', '--huge-pages']).hugePages).toBe(true);
    expect(parseBenchOptions(['--growth', '--shared-buffers', '16GB']).hugePages).toBe(false);
  });
});
