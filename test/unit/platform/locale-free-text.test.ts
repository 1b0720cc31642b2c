import { byCodeUnits } from '../../../src/platform/code-unit-order';
import { withThousands } from '../../../src/platform/document-parts/prose-numbers';

describe('byCodeUnits', () => {
  it('orders by UTF-16 code units, as collate "C" does, whatever the host locale says', () => {
    const words = ['b', 'a', 'B', 'é', 'z', '10', '9', 'USD', 'CAD', '2026-11-27', '2026-11-28', 'a'];
    expect([...words].sort(byCodeUnits)).toEqual(['10', '2026-11-27', '2026-11-28', '9', 'B', 'CAD', 'USD', 'a', 'a', 'b', 'z', 'é']);
    expect(byCodeUnits('a', 'a')).toBe(0);
    expect(byCodeUnits('B', 'a')).toBeLessThan(0);
    // Where a locale's collation would have it the other way round.
    expect('B'.localeCompare('a', 'en')).toBeGreaterThan(0);
  });
});

describe('withThousands', () => {
  it('writes what toLocaleString("en-US") writes for whole numbers', () => {
    for (const value of [0, 7, 999, 1000, 20_000, 999_999, 1_000_000, 1_234_567, -1234, Number.MAX_SAFE_INTEGER]) {
      expect(withThousands(value)).toBe(value.toLocaleString('en-US'));
    }
  });

  it('refuses what is not a safe integer rather than write it wrong', () => {
    for (const value of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) expect(() => withThousands(value)).toThrow(RangeError);
  });
});

describe('a process that declares every operation', () => {
  it('loads no ICU locale data: no collation, number or date format is asked for until a request needs one', () => {
    const asked = [
      jest.spyOn(String.prototype, 'localeCompare').mockName('String#localeCompare'),
      jest.spyOn(Number.prototype, 'toLocaleString').mockName('Number#toLocaleString'),
      ...(['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString'] as const).map((method) =>
        jest.spyOn(Date.prototype, method).mockName(`Date#${method}`),
      ),
      ...(['Collator', 'NumberFormat', 'DateTimeFormat', 'PluralRules', 'RelativeTimeFormat', 'ListFormat', 'DisplayNames', 'Segmenter'] as const).map(
        (service) => jest.spyOn(Intl, service).mockName(`Intl.${service}`),
      ),
    ];
    try {
      jest.isolateModules(() => {
        // The app and every feature's module, loaded afresh: their operations, schemas and descriptions are made on import.
        jest.requireActual('../../../src/app');
        jest.requireActual('../../../src/modules');
      });
      expect(asked.filter((spy) => spy.mock.calls.length > 0).map((spy) => spy.getMockName())).toEqual([]);
    } finally {
      for (const spy of asked) spy.mockRestore();
    }
  });
});
