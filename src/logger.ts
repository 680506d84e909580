import pino from 'pino';

/** Structured JSON logs. Authorization headers, card data and secrets are redacted wherever they appear. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info') {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.card_number', '*.cvc', '*.secret', '*.password', 'card_number', 'secret'],
      censor: '[redacted]',
    },
  });
}
export type Logger = ReturnType<typeof createLogger>;
