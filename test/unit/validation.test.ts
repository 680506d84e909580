import { zodToApiError } from '../../src/http/route';
import { z } from '../../src/http/zod';

const Schema = z.object({ amount: z.number().int(), payout: z.object({ currency: z.string().length(3) }).strict().optional(), methods: z.array(z.enum(['card'])).optional() }).strict();

function errorFor(input: unknown) {
  const r = Schema.safeParse(input);
  if (r.success) throw new Error('expected a validation error');
  return zodToApiError(r.error, input);
}

describe('zod → error table', () => {
  it('names a missing parameter', () => {
    expect(errorFor({})).toMatchObject({ status: 400, code: 'parameter_missing', param: 'amount' });
  });
  it('names an invalid nested parameter', () => {
    expect(errorFor({ amount: 1, payout: { currency: 'EURO' } })).toMatchObject({ code: 'parameter_invalid', param: 'payout.currency' });
    expect(errorFor({ amount: 1, methods: ['cash'] })).toMatchObject({ code: 'parameter_invalid', param: 'methods[0]' });
  });
  it('names an unknown parameter', () => {
    expect(errorFor({ amount: 1, colour: 'red' })).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
    expect(errorFor({ amount: 1, payout: { currency: 'EUR', x: 1 } })).toMatchObject({ code: 'parameter_unknown', param: 'payout.x' });
  });
});
