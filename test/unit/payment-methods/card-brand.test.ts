import { CARD_TYPES, cardTypeOf } from '../../../src/payment-methods/card-brand';

describe('cardTypeOf', () => {
  it.each(CARD_TYPES.map((type) => [type]))('maps the spec spelling %s to itself', (type) => {
    expect(cardTypeOf(type)).toBe(type);
  });

  it.each([
    ['VISA', 'Visa'],
    ['visa', 'Visa'],
    [' Visa ', 'Visa'],
    ['MASTERCARD', 'Mastercard'],
    ['master_card', 'Mastercard'],
    ['AMEX', 'Amex'],
    ['American Express', 'Amex'],
    ['AmericanExpress', 'Amex'],
    ['american_express', 'Amex'],
    ['jcb', 'JCB'],
    ['DINERS', 'Diners'],
    ['Diners Club', 'Diners'],
    ['DinersClub', 'Diners'],
    ['eftpos', 'Eftpos'],
    ['INTERAC', 'Interac'],
  ])('reads %j as %s', (brand, expected) => {
    expect(cardTypeOf(brand)).toBe(expected);
  });

  it.each([['UnionPay'], ['RuPay'], [''], ['visa electron'], ['VISA1']])('reads the unlisted brand %j as Unknown', (brand) => {
    expect(cardTypeOf(brand)).toBe('Unknown');
  });
});
