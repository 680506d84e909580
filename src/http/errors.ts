/** The error table of decisions §8. Every error response is built from an ApiError. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'idempotency_error'
  | 'rate_limit_error'
  | 'api_error';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const errors = {
  parameterMissing: (param: string, message = `Missing required parameter: ${param}.`) =>
    new ApiError(400, 'invalid_request_error', 'parameter_missing', message, param),
  parameterInvalid: (param: string | undefined, message: string) =>
    new ApiError(400, 'invalid_request_error', 'parameter_invalid', message, param),
  parameterUnknown: (param: string) =>
    new ApiError(400, 'invalid_request_error', 'parameter_unknown', `Received unknown parameter: ${param}.`, param),
  invalidJson: (message = 'The request body is not valid JSON.') =>
    new ApiError(400, 'invalid_request_error', 'invalid_json', message),
  versionInvalid: (value: string, known: readonly string[]) =>
    new ApiError(400, 'invalid_request_error', 'version_invalid', `Unknown Service-Version "${value}". Known versions: ${known.join(', ')}.`),
  invalidApiKey: (message = 'Invalid API key provided.') =>
    new ApiError(401, 'authentication_error', 'invalid_api_key', message, undefined, { 'WWW-Authenticate': 'Bearer' }),
  insufficientScope: (scope: string) =>
    new ApiError(403, 'permission_error', 'insufficient_scope', `This API key lacks the scope ${scope}.`),
  accountNotVerified: () =>
    new ApiError(403, 'permission_error', 'account_not_verified', 'Live keys work once the account has passed Tier 1 verification. Use a sandbox key (sk_test_) until then.'),
  notFound: (resource: string, id?: string) =>
    new ApiError(404, 'invalid_request_error', 'resource_missing', id ? `No such ${resource}: '${id}'.` : `No such ${resource}.`, id !== undefined ? 'id' : undefined),
  routeNotFound: (method: string, path: string) =>
    new ApiError(404, 'invalid_request_error', 'resource_missing', `Unrecognized request URL (${method}: ${path}).`),
  methodNotAllowed: () => new ApiError(405, 'invalid_request_error', 'method_not_allowed', 'This HTTP method is not allowed on this URL.'),
  unexpectedState: (message: string) => new ApiError(409, 'invalid_request_error', 'payment_unexpected_state', message),
  idempotencyKeyInUse: () =>
    new ApiError(409, 'idempotency_error', 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed. Retry shortly.'),
  idempotencyKeyReused: () =>
    new ApiError(422, 'idempotency_error', 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request.'),
  bodyTooLarge: (limit: string) =>
    new ApiError(413, 'invalid_request_error', 'body_too_large', `The request body exceeds the ${limit} limit.`),
  unsupportedMediaType: (got: string) =>
    new ApiError(415, 'invalid_request_error', 'unsupported_media_type', `Content-Type must be application/json, got "${got}".`),
  rateLimited: (retryAfterSeconds: number) =>
    new ApiError(429, 'rate_limit_error', 'rate_limited', 'Too many requests. Retry after the number of seconds in Retry-After.', undefined, {
      'Retry-After': String(retryAfterSeconds),
    }),
  internal: () => new ApiError(500, 'api_error', 'internal_error', 'An internal error occurred. Retry with the same Idempotency-Key.'),
  serviceUnavailable: () =>
    new ApiError(503, 'api_error', 'service_unavailable', 'The service is temporarily unavailable. Retry with the same Idempotency-Key.', undefined, { 'Retry-After': '1' }),
};

/** SQLSTATE classes that mean "the database is unreachable or shutting down", not a bug. */
const UNAVAILABLE_SQLSTATE = /^(08|57P0|53)/;
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** Maps any thrown value to an ApiError: known errors keep their meaning, everything else is a 500 without internals. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { code?: string; name?: string; message?: string; status?: number; expose?: boolean };
  if (typeof e?.code === 'string' && (UNAVAILABLE_SQLSTATE.test(e.code) || UNAVAILABLE_ERRNO.has(e.code))) {
    return errors.serviceUnavailable();
  }
  if (e?.message && /timeout exceeded when trying to connect|Connection terminated/i.test(e.message)) {
    return errors.serviceUnavailable();
  }
  // Temporal client: server unreachable (gRPC UNAVAILABLE / DEADLINE_EXCEEDED).
  if (e?.name === 'ServiceError' || (typeof (e as any)?.cause?.code === 'number' && [4, 14].includes((e as any).cause.code))) {
    return errors.serviceUnavailable();
  }
  return errors.internal();
}

export function errorBody(err: ApiError, requestId: string) {
  return {
    ok: false as const,
    error: {
      type: err.type,
      code: err.code,
      message: err.message,
      ...(err.param !== undefined ? { param: err.param } : {}),
      request_id: requestId,
    },
  };
}
