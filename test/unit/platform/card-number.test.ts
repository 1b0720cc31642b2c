import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { containsCardNumber, findCardNumberField, passesLuhn } from '../../../src/platform/validation/card-number';

describe('passesLuhn', () => {
  it.each([['4111111111111111'], ['5555555555554444'], ['378282246310005'], ['6011111111111117'], ['4222222222222']])('accepts the test card %s', (digits) =>
    expect(passesLuhn(digits)).toBe(true),
  );

  it.each([['4111111111111112'], ['1234567812345678']])('rejects %s', (digits) => expect(passesLuhn(digits)).toBe(false));
});

describe('containsCardNumber', () => {
  it.each([
    ['4111111111111111'],
    ['4111 1111 1111 1111'],
    ['4111-1111-1111-1111'],
    ['3782 822463 10005'],
    ['card: 4111111111111111, thanks'],
    ['x4111111111111111y'],
    ['4222222222222'],
    ['6250941006528599'], // 16-digit UnionPay
    ['6304000000000000'], // Maestro
    ['4111111111111111110'], // 19 digits passing Luhn
  ])('finds a card number in %j', (text) => expect(containsCardNumber(text)).toBe(true));

  it.each([
    ['4111111111111112'], // fails Luhn
    ['411111111116'], // 12 digits
    ['41111111111111110000'], // 20 digits: a run is taken whole
    ['4111  1111 1111 1111'], // two spaces break the run into short ones
    ['4111_1111_1111_1111'],
    ['phone +1 555 0100, order 123'],
    ['01234567-0123-7123-8123-123456789010'], // a UUID, even one whose digit groups pass Luhn
    ['loc-01234567-0123-7123-8123-123456789010'], // ... and inside a longer value
    [''],
  ])('finds none in %j', (text) => expect(containsCardNumber(text)).toBe(false));
});

describe('containsCardNumber on identifiers', () => {
  it('never takes a UUID, alone or inside other text, for a card number', () => {
    for (let round = 0; round < 20_000; round += 1) {
      const uuid = randomUUID();
      expect([uuid, `loc-${uuid}`, `${uuid}/${randomUUID()}`].filter(containsCardNumber)).toEqual([]);
    }
  });

  it('still finds a card number next to a UUID', () => {
    expect(containsCardNumber(`${randomUUID()} 4111111111111111`)).toBe(true);
  });
});

describe('findCardNumberField', () => {
  it('names the dotted path of the first field holding a card number', () => {
    expect(findCardNumberField({ a: 'ok', card: { notes: ['fine', 'pan 4111111111111111'] } })).toBe('card.notes.1');
  });

  it('finds card numbers in JSON numbers and in keys, naming a key with its digits masked', () => {
    expect(findCardNumberField({ amount: 4111111111111111 })).toBe('amount');
    expect(findCardNumberField({ meta: { '4111111111111111': true } })).toBe('meta.****************');
  });

  it('answers undefined for clean input, and an empty path for a bare value', () => {
    expect(findCardNumberField({ a: 1, b: null, c: [true, 'x'] })).toBeUndefined();
    expect(findCardNumberField('4111111111111111')).toBe('');
  });
});

describe('containsCardNumber, its quick pre-check', () => {
  // The whole scan, without the allocation-free check for a 13-digit run in front of it.
  const fullScan = (text: string): boolean =>
    [...text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, ' ').matchAll(/\d(?:[ -]?\d)*/g)].some(([run]) => {
      const digits = run.replace(/[ -]/g, '');
      return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits);
    });

  it('answers as the whole scan does, on text made of digits, separators and letters', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('4', '1', '0', '7', '5', ' ', '-', '--', '  ', 'a', 'x'), { maxLength: 60 }), (parts) => {
        const text = parts.join('');
        expect(containsCardNumber(text)).toBe(fullScan(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('still finds grouped test cards, and passes UUIDs', () => {
    expect(containsCardNumber('4111 1111 1111 1111')).toBe(true);
    expect(containsCardNumber('4111-1111-1111-1111')).toBe(true);
    expect(containsCardNumber('4111 -1111 1111 1111')).toBe(false);
    expect(containsCardNumber(randomUUID())).toBe(false);
  });
});
