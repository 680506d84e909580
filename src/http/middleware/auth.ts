import type Koa from 'koa';
import { isApiVersion, API_VERSIONS } from '../../domain/versions';
import type { AppContext, AppServices } from '../context';
import { errors } from '../errors';

const BEARER = /^Bearer (sk_(test|live)_[A-Za-z0-9_-]{32,})$/;

/** Bearer secret key → account, mode and scopes (decisions §6). The secret is looked up by its hash only. */
export function authenticate(services: AppServices): Koa.Middleware {
  return async (ctx: AppContext, next) => {
    const header = ctx.get('Authorization');
    if (!header) throw errors.invalidApiKey('No API key provided. Send it as "Authorization: Bearer sk_test_…".');
    const match = BEARER.exec(header);
    if (!match) throw errors.invalidApiKey('Malformed Authorization header. Expected "Bearer sk_test_…" or "Bearer sk_live_…".');
    const key = await services.apiKeys.lookup(match[1]);
    if (!key) throw errors.invalidApiKey();
    ctx.state.auth = key;
    return next();
  };
}

/** Live keys are refused until the account passes Tier 1 verification. */
export function liveKeyGate(): Koa.Middleware {
  return async (ctx: AppContext, next) => {
    const auth = ctx.state.auth!;
    if (auth.livemode && !auth.accountVerified) throw errors.accountNotVerified();
    return next();
  };
}

/** Service-Version: explicit header, else the account's pinned version; always echoed. */
export function serviceVersion(): Koa.Middleware {
  return async (ctx: AppContext, next) => {
    const requested = ctx.get('Service-Version');
    if (requested && !isApiVersion(requested)) throw errors.versionInvalid(requested, API_VERSIONS);
    const version = requested && isApiVersion(requested) ? requested : ctx.state.auth!.accountApiVersion;
    ctx.state.version = version;
    ctx.set('Service-Version', version);
    return next();
  };
}
