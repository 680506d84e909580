import { assertAllowedWebhookUrl, isPrivateAddress } from '../../src/webhooks/address';
import { sendWebhook } from '../../src/webhooks/send';
import { startReceiver } from '../support/receiver';

describe('webhook destinations', () => {
  it.each(['127.0.0.1', '10.0.0.5', '172.16.3.4', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip'])(
    '%s is private',
    (a) => expect(isPrivateAddress(a)).toBe(true),
  );
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (a) => expect(isPrivateAddress(a)).toBe(false));

  it('lets sandbox use http and loopback, and holds live to public https', async () => {
    await expect(assertAllowedWebhookUrl('http://localhost:3000/x', false)).resolves.toBeUndefined();
    await expect(assertAllowedWebhookUrl('https://93.184.216.34/x', true)).resolves.toBeUndefined();
    await expect(assertAllowedWebhookUrl('http://93.184.216.34/x', true)).rejects.toMatchObject({ code: 'invalid_url' });
    await expect(assertAllowedWebhookUrl('https://localhost/x', true)).rejects.toMatchObject({ code: 'unsafe_address' });
    await expect(assertAllowedWebhookUrl('https://user:pw@93.184.216.34/x', true)).rejects.toMatchObject({ code: 'invalid_url' });
    await expect(assertAllowedWebhookUrl('https://no-such-host.invalid/x', true)).rejects.toMatchObject({ code: 'unresolvable' });
  });

  it('re-checks at delivery time: a live delivery never connects to a loopback address', async () => {
    const receiver = await startReceiver();
    try {
      const port = new URL(receiver.url).port;
      // By name (resolved through the guarded lookup) and as an IP literal.
      for (const url of [`http://localhost:${port}/hooks`, `http://127.0.0.1:${port}/hooks`]) {
        const res = await sendWebhook({ url, headers: {}, body: '{}', timeoutMs: 2000, publicOnly: true });
        expect(res.status).toBeNull();
        expect(res.error).toMatch(/private, loopback or link-local/);
      }
      expect(receiver.requests).toHaveLength(0);
      // The same request in sandbox goes through.
      const ok = await sendWebhook({ url: receiver.url, headers: {}, body: '{}', timeoutMs: 2000, publicOnly: false });
      expect(ok.status).toBe(200);
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
