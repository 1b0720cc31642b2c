import { parse } from 'csv-parse/sync';
import { csvRow, majorUnits, minorUnitDigits, plainCell, textCell } from '../../../src/platform/csv/csv-cells';

describe('CSV cells', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('starts a text cell that a spreadsheet would run (%j) with a quote mark', (text) => {
    expect(textCell(text)).toBe(`'${text}`);
  });

  it('leaves other text, and the cells the service writes, as they are', () => {
    expect(textCell('order-1042')).toBe('order-1042');
    expect(textCell('a=b')).toBe('a=b');
    expect(textCell(null)).toBe('');
    expect(plainCell('-12.50')).toBe('-12.50');
    expect(plainCell(null)).toBe('');
  });

  it('quotes what RFC 4180 needs quoted, ends a record with CRLF, and reads back the same cells', () => {
    const cells = ['plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\rhere', ''];
    const row = csvRow(cells);
    expect(row).toBe('plain,"a,b","say ""hi""","two\nlines","cr\rhere",\r\n');
    expect(parse(row, { record_delimiter: '\r\n' })).toEqual([cells]);
  });

  it("writes minor units as the currency's major units, exactly", () => {
    expect(minorUnitDigits('USD')).toBe(2);
    expect(minorUnitDigits('JPY')).toBe(0);
    expect(minorUnitDigits('KWD')).toBe(3);
    expect(majorUnits(1250, 2)).toBe('12.50');
    expect(majorUnits(-5, 2)).toBe('-0.05');
    expect(majorUnits(0, 2)).toBe('0.00');
    expect(majorUnits(-1250, 0)).toBe('-1250');
    expect(majorUnits(1, 3)).toBe('0.001');
    expect(majorUnits(999_999_999_999_999, 2)).toBe('9999999999999.99');
  });
});
