import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { advisoryLockKey, canonicalJson, requestFingerprint } from '../../src/http/idempotency';
import { registerRoutes } from '../../src/http/route';
import { widgetRoutes } from '../support/widgets';

describe('canonical JSON', () => {
  it('sorts object keys recursively, keeps array order and values', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[2,{"y":null,"z":1}]},"b":1}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
  });
});

describe('request fingerprint', () => {
  it('covers method, path, query and body, not key order', () => {
    const base = requestFingerprint('post', '/v1/payments', {}, { amount: 100, currency: 'EUR' });
    expect(requestFingerprint('POST', '/v1/payments', {}, { currency: 'EUR', amount: 100 })).toBe(base);
    expect(requestFingerprint('POST', '/v1/payment-links', {}, { amount: 100, currency: 'EUR' })).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/payments', { expand: 'x' }, { amount: 100, currency: 'EUR' })).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/payments', {}, { amount: 101, currency: 'EUR' })).not.toBe(base);
  });
});

describe('advisory lock key', () => {
  it('is a stable signed 64-bit value per (account, mode, key)', () => {
    const req = { accountId: '0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e', livemode: false, key: 'k1' };
    const k = advisoryLockKey(req);
    expect(advisoryLockKey({ ...req })).toBe(k);
    expect(k).toBeGreaterThanOrEqual(-(2n ** 63n));
    expect(k).toBeLessThan(2n ** 63n);
    expect(advisoryLockKey({ ...req, livemode: true })).not.toBe(k);
    expect(advisoryLockKey({ ...req, key: 'k2' })).not.toBe(k);
  });
});

describe('OpenAPI', () => {
  it('documents Idempotency-Key, the idempotency errors and Idempotent-Replayed on every POST', () => {
    const registry = new OpenAPIRegistry();
    registerRoutes(registry, widgetRoutes);
    const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: '3.1.0', info: { title: 't', version: '1' } });
    const op: any = doc.paths!['/v1/test-widgets'].post;
    expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header' })]));
    expect(op.responses['409'].description).toMatch(/idempotency_key_in_use/);
    expect(op.responses['422'].description).toMatch(/idempotency_key_reused/);
    expect(op.responses['200'].headers['Idempotent-Replayed']).toBeDefined();
    expect(op.responses['404'].headers['Idempotent-Replayed']).toBeDefined();
    expect(op.responses['401'].headers).toBeUndefined();
  });
});
