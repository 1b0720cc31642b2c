/** The spec's card brands, spelled as the spec lists them. */
export const CARD_TYPES = [
  'Visa',
  'Mastercard',
  'Amex',
  'Discover',
  'JCB',
  'Diners',
  'Citi',
  'Maestro',
  'Laser',
  'Solo',
  'Interac',
  'Eftpos',
  'Unknown',
] as const;

export type CardType = (typeof CARD_TYPES)[number];

function squeeze(brand: string): string {
  return brand.toLowerCase().replace(/[\s_-]+/g, '');
}

const BY_SQUEEZED_NAME = new Map<string, CardType>(CARD_TYPES.map((type) => [squeeze(type), type]));
// The long names vaults and processors commonly send (Stripe's `amex`/`diners`
// match directly; Hyperswitch sends `AmericanExpress`, `DinersClub`).
BY_SQUEEZED_NAME.set('americanexpress', 'Amex');
BY_SQUEEZED_NAME.set('dinersclub', 'Diners');
BY_SQUEEZED_NAME.set('dinersclubinternational', 'Diners');
BY_SQUEEZED_NAME.set('mastercarddebit', 'Mastercard');

/** The spec's enumerated brand for a vault's free-text brand; anything unrecognised is `Unknown`. */
export function cardTypeOf(brand: string): CardType {
  return BY_SQUEEZED_NAME.get(squeeze(brand)) ?? 'Unknown';
}
