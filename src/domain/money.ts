/**
 * Currencies, minor units and the sandbox FX table (decisions §2).
 * Amounts are integers in the currency's minor unit everywhere; conversion uses BigInt only.
 */
export const CURRENCY_EXPONENT = {
  USD: 2, EUR: 2, GBP: 2, CHF: 2, JPY: 0, CAD: 2, AUD: 2, SEK: 2, NOK: 2, DKK: 2, PLN: 2,
  USDC: 6,
} as const;
export type Currency = keyof typeof CURRENCY_EXPONENT;

export const PRESENTMENT_CURRENCIES = ['USD', 'EUR', 'GBP', 'CHF', 'JPY', 'CAD', 'AUD', 'SEK', 'NOK', 'DKK', 'PLN'] as const;
export type PresentmentCurrency = (typeof PRESENTMENT_CURRENCIES)[number];
/** Bank payouts go to a fiat currency; wallet payouts are in USDC. */
export const BANK_PAYOUT_CURRENCIES = PRESENTMENT_CURRENCIES;
export const WALLET_PAYOUT_CURRENCIES = ['USDC'] as const;

/**
 * The sandbox rate table: the value of one unit of each currency in US dollars, in millionths.
 * Fixed so that sandbox payouts are reproducible. Documented in README ("Settlement and FX").
 */
export const SANDBOX_USD_VALUE_MICROS: Record<Currency, bigint> = {
  USD: 1_000_000n,
  USDC: 1_000_000n,
  EUR: 1_080_000n,
  GBP: 1_270_000n,
  CHF: 1_130_000n,
  JPY: 6_700n,
  CAD: 730_000n,
  AUD: 650_000n,
  SEK: 95_000n,
  NOK: 93_000n,
  DKK: 145_000n,
  PLN: 250_000n,
};
export const FX_TABLE_NAME = 'sandbox-fixed-2026-11';

/** Divides and rounds half away from zero (amounts are positive, so half up). */
function divRoundHalfUp(n: bigint, d: bigint): bigint {
  return (2n * n + d) / (2n * d);
}

/**
 * Converts an amount between currencies. The rate is first fixed to 6 decimals
 * (rate_micros = round(usdValue(from) / usdValue(to) × 10^6)), and the payout amount is
 * round(amount × rate_micros × 10^exp(to) / (10^6 × 10^exp(from))), both rounded half up.
 * The payout records the 6-decimal rate, so anyone can recompute it.
 */
export function convert(amountMinor: number, from: Currency, to: Currency): { amount: number; rateMicros: bigint; rate: string } {
  const rateMicros = from === to ? 1_000_000n : divRoundHalfUp(SANDBOX_USD_VALUE_MICROS[from] * 1_000_000n, SANDBOX_USD_VALUE_MICROS[to]);
  const numerator = BigInt(amountMinor) * rateMicros * 10n ** BigInt(CURRENCY_EXPONENT[to]);
  const denominator = 1_000_000n * 10n ** BigInt(CURRENCY_EXPONENT[from]);
  const amount = divRoundHalfUp(numerator, denominator);
  return { amount: Number(amount), rateMicros, rate: formatMicros(rateMicros) };
}

function formatMicros(micros: bigint): string {
  const s = micros.toString().padStart(7, '0');
  return `${s.slice(0, -6)}.${s.slice(-6)}`;
}

/** "€12.34", "¥500": the amount in the currency's own format, for the hosted pages. */
export function formatAmount(amountMinor: number, currency: string, locale = 'en-US'): string {
  const exponent = CURRENCY_EXPONENT[currency as Currency] ?? 2;
  const major = amountMinor / 10 ** exponent;
  if (currency === 'USDC') return `${major.toFixed(2)} USDC`;
  return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: exponent, maximumFractionDigits: exponent }).format(major);
}
