import crypto from 'node:crypto';

/**
 * Webhook signatures (decisions §5): `Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]` where
 * each v1 is the lower-case hex HMAC-SHA256 of "<t>.<raw body>" keyed with one active signing secret
 * (the whole `whsec_…` string as UTF-8). During a rotation there is one v1 per active secret.
 * Both sides live here so the signer and the verifier can never drift apart.
 */
export const SIGNATURE_HEADER = 'Service-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function computeSignature(secret: string, timestamp: number, payload: string | Buffer): string {
  return crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(payload).digest('hex');
}

/** The header value for a payload signed with every given secret. */
export function signPayload(payload: string | Buffer, secrets: string[], timestamp: number): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${computeSignature(s, timestamp, payload)}`)].join(',');
}

export function generateSigningSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64url')}`;
}

export type VerifyResult = { valid: true; timestamp: number } | { valid: false; reason: 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature' };

export interface VerifyOptions {
  /** The raw request body, exactly as received (before any JSON parsing). */
  payload: string | Buffer;
  /** The Service-Signature header value. */
  header: string | null | undefined;
  /** One secret, or several (e.g. the new and the old one while you roll a rotation out). */
  secret?: string;
  secrets?: string[];
  /** Reject a `t` further than this from now (either direction). Default 300. */
  toleranceSeconds?: number;
  /** Unix seconds; defaults to the current time. */
  now?: number;
}

function parseHeader(header: string): { timestamp: number; signatures: string[] } | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== null) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (/^[0-9a-f]{64}$/.test(value)) signatures.push(value);
    }
    // Other schemes (v0, future v2) are ignored, so a receiver keeps working when we add one.
  }
  if (timestamp === null || signatures.length === 0) return null;
  return { timestamp, signatures };
}

/** Verifies a Service-Signature header. Never throws for bad input; returns why it failed. */
export function verifyServiceSignatureDetailed(opts: VerifyOptions): VerifyResult {
  const secrets = opts.secrets ?? (opts.secret !== undefined ? [opts.secret] : []);
  if (typeof opts.header !== 'string') return { valid: false, reason: 'malformed_header' };
  const parsed = parseHeader(opts.header);
  if (!parsed) return { valid: false, reason: 'malformed_header' };
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - parsed.timestamp) > tolerance) return { valid: false, reason: 'timestamp_outside_tolerance' };
  for (const secret of secrets) {
    const expected = Buffer.from(computeSignature(secret, parsed.timestamp, opts.payload), 'hex');
    for (const sig of parsed.signatures) {
      // Constant-time: both buffers are 32 bytes (the header parser only keeps 64-hex-digit values).
      if (crypto.timingSafeEqual(expected, Buffer.from(sig, 'hex'))) return { valid: true, timestamp: parsed.timestamp };
    }
  }
  return { valid: false, reason: 'no_matching_signature' };
}

/** True when the header carries a valid, fresh signature of payload by one of the secrets. */
export function verifyServiceSignature(opts: VerifyOptions): boolean {
  return verifyServiceSignatureDetailed(opts).valid;
}
