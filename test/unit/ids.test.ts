import { newUuid, parsePublicId, publicId, uuidV7Bounds, uuidV7Seconds } from '../../src/ids';

describe('ids', () => {
  it('round-trips public ids and rejects other kinds and malformed ids', () => {
    const uuid = newUuid();
    expect(parsePublicId('payment', publicId('payment', uuid))).toBe(uuid);
    expect(parsePublicId('event', publicId('payment', uuid))).toBeNull();
    expect(parsePublicId('payment', 'pmt_not-a-uuid')).toBeNull();
    expect(parsePublicId('payment', `pmt_${uuid.toUpperCase()}`)).toBeNull();
  });

  it('orders UUIDv7 by time and bounds a second exactly', () => {
    const a = newUuid();
    const seconds = uuidV7Seconds(a);
    const { min, max } = uuidV7Bounds(seconds);
    expect(min <= a && a <= max).toBe(true);
    expect(uuidV7Bounds(seconds + 1).min > max).toBe(true);
  });
});
