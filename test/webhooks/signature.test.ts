import fs from 'node:fs';
import path from 'node:path';
import { signPayload, verifyServiceSignature, verifyServiceSignatureDetailed } from '../../src/webhooks/signature';

interface Vector {
  name: string;
  secret: string;
  timestamp: number;
  body: string;
  header: string;
  now: number;
  valid: boolean;
}

// Committed vectors (computed independently with node:crypto) so client libraries in other languages can run the same cases.
const vectors: Vector[] = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'vectors', 'webhook-signatures.json'), 'utf8'));

describe('webhook signature vectors', () => {
  it('covers rotation, wrong secret, tampering, age and malformed headers', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(10);
    expect(vectors.some((v) => (v.header.match(/v1=/g) ?? []).length === 2 && v.valid)).toBe(true);
    expect(vectors.filter((v) => !v.valid).length).toBeGreaterThanOrEqual(5);
  });

  it.each(vectors.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    expect(verifyServiceSignature({ payload: v.body, header: v.header, secret: v.secret, now: v.now })).toBe(v.valid);
    // The same with a Buffer payload and a secrets list.
    expect(verifyServiceSignature({ payload: Buffer.from(v.body, 'utf8'), header: v.header, secrets: ['whsec_unrelated', v.secret], now: v.now })).toBe(v.valid);
  });

  it('signs exactly like the vectors', () => {
    for (const v of vectors.filter((x) => x.valid && (x.header.match(/v1=/g) ?? []).length === 1 && !x.header.includes('v0'))) {
      expect(signPayload(v.body, [v.secret], v.timestamp)).toBe(v.header);
    }
  });

  it('says why a signature failed, and rejects a missing header', () => {
    const v = vectors[0];
    expect(verifyServiceSignatureDetailed({ payload: v.body, header: v.header, secret: v.secret, now: v.now + 1000 })).toEqual({ valid: false, reason: 'timestamp_outside_tolerance' });
    expect(verifyServiceSignatureDetailed({ payload: v.body, header: undefined, secret: v.secret, now: v.now })).toEqual({ valid: false, reason: 'malformed_header' });
    expect(verifyServiceSignatureDetailed({ payload: v.body, header: v.header, secret: 'whsec_x', now: v.now })).toEqual({ valid: false, reason: 'no_matching_signature' });
    expect(verifyServiceSignature({ payload: v.body, header: v.header, secret: v.secret, now: v.now + 1000, toleranceSeconds: 2000 })).toBe(true);
  });
});
