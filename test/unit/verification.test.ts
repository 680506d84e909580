import { isValidIban, reviewVerification, VerificationSubmitSchema, type VerificationSubmitInput } from '../../src/domain/verification';
import { hashPassword, verifyPassword } from '../../src/dashboard/passwords';

const valid: VerificationSubmitInput = {
  business: { legal_name: 'Acme Trading Ltd', country: 'GB', registration_number: '12345678' },
  representative: { name: 'Ada Lovelace', date_of_birth: '1985-12-10' },
  payout_bank: { iban: 'GB82WEST12345698765432', holder: 'Acme Trading Ltd' },
  payout_wallet: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
};

describe('IBAN mod-97', () => {
  it.each(['GB82WEST12345698765432', 'GB82 WEST 1234 5698 7654 32', 'DE89370400440532013000', 'fr1420041010050500013m02606'])('accepts %s', (iban) => {
    expect(isValidIban(iban)).toBe(true);
  });
  it.each(['GB83WEST12345698765432', 'DE89370400440532013001', 'GB82WEST', '', 'XX00', '1234567890123456'])('rejects %s', (iban) => {
    expect(isValidIban(iban)).toBe(false);
  });
});

describe('verification schema', () => {
  it('normalises the IBAN and accepts a complete submission', () => {
    const parsed = VerificationSubmitSchema.parse({ ...valid, payout_bank: { iban: 'gb82 west 1234 5698 7654 32', holder: 'Acme' } });
    expect(parsed.payout_bank.iban).toBe('GB82WEST12345698765432');
  });
  it('names the failing field', () => {
    const bad = VerificationSubmitSchema.safeParse({ ...valid, payout_wallet: { address: '0x123' } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0].path).toEqual(['payout_wallet', 'address']);
    const date = VerificationSubmitSchema.safeParse({ ...valid, representative: { name: 'A B', date_of_birth: '2001-02-30' } });
    expect(date.error!.issues[0].path).toEqual(['representative', 'date_of_birth']);
  });
});

describe('sandbox review rules', () => {
  const now = new Date('2026-06-01T00:00:00Z');
  it('verifies ordinary details', () => {
    expect(reviewVerification(valid, now)).toEqual({ status: 'verified' });
  });
  it('rejects the documented test values and minors', () => {
    expect(reviewVerification({ ...valid, business: { ...valid.business, legal_name: 'Please REJECT me Ltd' } }, now).status).toBe('rejected');
    expect(reviewVerification({ ...valid, representative: { name: 'X Y', date_of_birth: '1900-01-01' } }, now).status).toBe('rejected');
    expect(reviewVerification({ ...valid, representative: { name: 'X Y', date_of_birth: '2010-01-01' } }, now)).toMatchObject({ status: 'rejected', reason: expect.stringContaining('18') });
  });
});

describe('passwords', () => {
  it('hashes with scrypt and a random salt, and verifies', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct horse');
    await expect(verifyPassword('correct horse battery', a)).resolves.toBe(true);
    await expect(verifyPassword('correct horse batterY', a)).resolves.toBe(false);
    await expect(verifyPassword('anything', 'not-a-hash')).resolves.toBe(false);
  });
});
