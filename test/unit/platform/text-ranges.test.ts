import { FORMAT_CHARACTERS_BMP, WHITE_SPACE_AND_CONTROL } from '../../../src/platform/validation/text.schemas';
import { hasFormatCharacters } from '../../../src/platform/validation/text.schemas';

/**
 * The explicit ranges the document's patterns use in place of Unicode
 * property escapes (text.schemas.ts) name exactly the characters the
 * escapes do, by Node's own Unicode tables: when a Node upgrade brings a
 * Unicode version with new format characters, this fails and says which.
 */
function differences(ranges: string, property: RegExp, last: number): string[] {
  const explicit = new RegExp(`[${ranges}]`);
  const differ: string[] = [];
  for (let code = 0; code <= last; code += 1) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const character = String.fromCodePoint(code);
    if (explicit.test(character) !== property.test(character)) differ.push(`U+${code.toString(16).padStart(4, '0')}`);
  }
  return differ;
}

it('FORMAT_CHARACTERS_BMP is every format character (Cf) of the Basic Multilingual Plane', () => {
  expect(differences(FORMAT_CHARACTERS_BMP, /\p{Cf}/u, 0xffff)).toEqual([]);
});

it('WHITE_SPACE_AND_CONTROL is every white-space and control character (\\s, Cc), none of which lies past the Basic Multilingual Plane', () => {
  expect(differences(WHITE_SPACE_AND_CONTROL, /[\s\p{Cc}]/u, 0x10ffff)).toEqual([]);
});

it('the format characters past the Basic Multilingual Plane are still found (the refinement beside the pattern)', () => {
  for (const character of ['\u{e0001}', '\u{e0041}', '\u{1d173}', '\u{110bd}']) expect(hasFormatCharacters(`ab${character}`)).toBe(true);
});
