import { convert, formatAmount } from '../../src/domain/money';
import { cardBrand, luhnValid } from '../../src/processor/cards';

describe('convert', () => {
  it('is the identity for the same currency', () => {
    expect(convert(1234, 'EUR', 'EUR')).toMatchObject({ amount: 1234, rate: '1.000000' });
  });
  it('fixes the rate to 6 decimals, then rounds the amount half up', () => {
    expect(convert(1000, 'USD', 'EUR')).toMatchObject({ amount: 926, rate: '0.925926' });
    expect(convert(1, 'USD', 'EUR')).toMatchObject({ amount: 1 }); // 0.925926 cents rounds to 1
  });
  it('handles currencies with 0 and 6 decimals', () => {
    expect(convert(10000, 'JPY', 'USD')).toMatchObject({ amount: 6700, rate: '0.006700' }); // ¥10,000 → $67.00
    expect(convert(2000, 'EUR', 'USDC')).toMatchObject({ amount: 21_600_000, rate: '1.080000' }); // €20 → 21.6 USDC
    expect(convert(100, 'USD', 'JPY')).toMatchObject({ amount: 149, rate: '149.253731' }); // $1 → ¥149
  });
  it('never loses precision on the largest amount', () => {
    expect(convert(99_999_999, 'GBP', 'JPY').amount).toBe(Math.round((99_999_999 * 189.552239) / 100));
  });
});

describe('formatAmount', () => {
  it('uses the currency’s own minor unit', () => {
    expect(formatAmount(2500, 'EUR')).toBe('€25.00');
    expect(formatAmount(500, 'JPY')).toBe('¥500');
    expect(formatAmount(21_600_000, 'USDC')).toBe('21.60 USDC');
  });
});

describe('cards', () => {
  it('checks Luhn and detects the brand', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(luhnValid('42424242')).toBe(false);
    expect(cardBrand('4242424242424242')).toBe('visa');
    expect(cardBrand('5555555555554444')).toBe('mastercard');
    expect(cardBrand('378282246310005')).toBe('amex');
  });
});
