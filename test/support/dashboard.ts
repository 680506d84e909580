/** A cookie-keeping HTTP client for the dashboard's forms (no browser), for authorisation tests. */
export class DashboardClient {
  readonly cookies = new Map<string, string>();
  constructor(
    readonly baseUrl: string,
    readonly headers: Record<string, string> = {},
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (attrs.some((a) => /max-age=0\b/i.test(a.trim())) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(path: string): Promise<{ status: number; text: string; location: string | null; headers: Headers }> {
    const res = await fetch(`${this.baseUrl}/dashboard${path}`, { redirect: 'manual', headers: { ...this.headers, Cookie: this.cookieHeader() } });
    this.keep(res);
    return { status: res.status, text: await res.text(), location: res.headers.get('location'), headers: res.headers };
  }

  async post(path: string, form: Record<string, string | string[]>): Promise<{ status: number; text: string; location: string | null; headers: Headers }> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
    const res = await fetch(`${this.baseUrl}/dashboard${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...this.headers, Cookie: this.cookieHeader(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
    this.keep(res);
    return { status: res.status, text: await res.text(), location: res.headers.get('location'), headers: res.headers };
  }

  /** The CSRF token of the first form on a page. */
  async csrf(path: string): Promise<string> {
    const page = await this.get(path);
    const m = /name="_csrf" value="([^"]+)"/.exec(page.text);
    if (!m) throw new Error(`no CSRF token on ${path} (status ${page.status})`);
    return m[1];
  }

  /** Signs up a fresh account; returns the sandbox secret shown once. */
  async signUp(email: string, password = 'correct horse battery', businessName = 'Dash Test Ltd'): Promise<string> {
    const _csrf = await this.csrf('/signup');
    const res = await this.post('/signup', { _csrf, business_name: businessName, email, password });
    if (res.status !== 201) throw new Error(`sign-up failed: ${res.status}`);
    const m = /data-testid="secret-key"|value="(sk_test_[A-Za-z0-9_-]+)"/.exec(res.text);
    const secret = /value="(sk_test_[A-Za-z0-9_-]+)"/.exec(res.text)?.[1];
    if (!m || !secret) throw new Error('no secret on the welcome page');
    return secret;
  }
}

export const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
