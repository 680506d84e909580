import dns from 'node:dns';
import net from 'node:net';

/**
 * Live endpoints must not reach private, loopback or link-local addresses (decisions §5): a
 * merchant could otherwise make the service POST into its own network. Checked at registration
 * and again at connect time (the lookup below pins the checked address, so DNS rebinding between
 * the check and the connection does not help).
 */
const BLOCKED = new net.BlockList();
for (const [net4, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net4, prefix, 'ipv4');
for (const [net6, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32],
] as const) BLOCKED.addSubnet(net6, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms are judged by their IPv4 part.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
    if (/^::ffff:/i.test(address)) return true;
    return BLOCKED.check(address, 'ipv6');
  }
  return true; // not an IP at all: refuse
}

export class UnsafeDestinationError extends Error {
  constructor(message: string, readonly code: 'unsafe_address' | 'unresolvable' | 'invalid_url') {
    super(message);
  }
}

/** Resolves a host name (or takes an IP literal) and returns every address it maps to. */
export async function resolveHost(hostname: string): Promise<string[]> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(bare)) return [bare];
  try {
    const results = await dns.promises.lookup(bare, { all: true, verbatim: true });
    return results.map((r) => r.address);
  } catch {
    throw new UnsafeDestinationError(`The host ${bare} does not resolve.`, 'unresolvable');
  }
}

/**
 * Checks a webhook URL for the given mode. Sandbox: http or https, any host. Live: https only, and
 * every address the host resolves to must be public.
 */
export async function assertAllowedWebhookUrl(raw: string, livemode: boolean): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeDestinationError('The url is not a valid absolute URL.', 'invalid_url');
  }
  if (url.username || url.password) throw new UnsafeDestinationError('The url must not contain credentials.', 'invalid_url');
  if (!livemode) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UnsafeDestinationError('The url must use http or https.', 'invalid_url');
    return;
  }
  if (url.protocol !== 'https:') throw new UnsafeDestinationError('Live webhook endpoints must use https.', 'invalid_url');
  const addresses = await resolveHost(url.hostname);
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw new UnsafeDestinationError('Live webhook endpoints must not resolve to private, loopback or link-local addresses.', 'unsafe_address');
  }
}

/**
 * A `lookup` for http(s).request that refuses private addresses (live deliveries). Used at
 * connect time, so the address that was checked is the one connected to.
 */
export function publicOnlyLookup(
  hostname: string,
  options: dns.LookupOptions,
  callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void,
): void {
  dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (list.length === 0 || bad) {
      return callback(Object.assign(new UnsafeDestinationError(`${hostname} resolves to a private, loopback or link-local address.`, 'unsafe_address'), { errno: 0 }) as any, '');
    }
    if (options.all) return callback(null, list);
    callback(null, list[0].address, list[0].family);
  });
}
