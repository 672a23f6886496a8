/**
 * Talking to the admin API, signed in with a session. The admin token never travels in a URL: `sheetport
 * dashboard` and the tray app open `/ui/#code=...` with a one-use sign-in code (good for a minute), which the
 * page removes from the address bar at once and trades for a session (`POST /admin/session`, in a body). The
 * session is kept in sessionStorage (this tab only, gone when it closes) and goes out as `Authorization: Bearer`,
 * which no cross-site form can add. A rotation of the admin token or a server restart ends it: the next call is
 * 401 and the page shows the sign-in screen again.
 */
const SESSION_KEY = 'sheetport.session';
/** Where an older dashboard kept the admin token itself; cleared on sight. */
const OLD_TOKEN_KEY = 'sheetport.adminToken';
export const SIGNED_OUT_EVENT = 'sheetport:signed-out';

export function currentSession(): string | null {
  sessionStorage.removeItem(OLD_TOKEN_KEY);
  return sessionStorage.getItem(SESSION_KEY);
}

/**
 * The sign-in code in the fragment (`#code=...`), removed from the address bar before anything else happens. An
 * old-style `#token=...` link is removed too and signs nobody in: the token does not belong in a URL.
 */
export function takeSignInCode(): string | null {
  const match = /(?:^#|&)(code|token)=([^&]*)/.exec(window.location.hash);
  if (!match) return null;
  history.replaceState(null, '', window.location.pathname + window.location.search);
  return match[1] === 'code' && match[2] ? decodeURIComponent(match[2]) : null;
}

async function openSession(init: RequestInit): Promise<void> {
  const res = await fetch('/admin/session', { method: 'POST', ...init });
  const json = (await res.json().catch(() => null)) as {
    session?: string;
    error?: { code?: string; message?: string; request_id?: string };
  } | null;
  if (!res.ok || !json?.session) {
    throw new ApiError(
      res.status,
      json?.error?.code ?? 'error',
      json?.error?.message ?? `HTTP ${res.status}`,
      json?.error?.request_id ?? res.headers.get('X-Request-Id'),
    );
  }
  sessionStorage.setItem(SESSION_KEY, json.session);
}

/** Trades a sign-in code for a session; false when the code was used already or has expired. */
export async function signInWithCode(code: string): Promise<boolean> {
  try {
    await openSession({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code }) });
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return false;
    throw err;
  }
}

/** Trades the admin token (pasted into the sign-in form) for a session; the token itself is not kept. */
export function signInWithToken(token: string): Promise<void> {
  return openSession({ headers: { Authorization: `Bearer ${token}` } });
}

export async function signOut(): Promise<void> {
  const session = sessionStorage.getItem(SESSION_KEY);
  sessionStorage.removeItem(SESSION_KEY);
  if (session) {
    await fetch('/admin/session', {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${session}` },
    }).catch(() => {});
  }
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | null;
  /** The error envelope's other fields (`parameter`, `position`, `expected`, `field`, ...). */
  readonly details: Record<string, unknown>;
  constructor(
    status: number,
    code: string,
    message: string,
    requestId: string | null,
    details: Record<string, unknown> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.requestId = requestId;
    this.details = details;
  }
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${sessionStorage.getItem(SESSION_KEY) ?? ''}`,
  };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
  } catch {
    throw new ApiError(0, 'network', 'SheetPort is not answering. Is the server still running?', null);
  }
  const text = await res.text();
  const json = text ? (JSON.parse(text) as unknown) : null;
  if (res.status === 401 && sessionStorage.getItem(SESSION_KEY)) {
    // The session ended (a rotation of the admin token, a server restart): back to the sign-in screen.
    sessionStorage.removeItem(SESSION_KEY);
    window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
  }
  if (!res.ok) {
    const err = (
      json as {
        error?: { code?: string; message?: string; request_id?: string } & Record<string, unknown>;
      } | null
    )?.error;
    throw new ApiError(
      res.status,
      err?.code ?? 'error',
      err?.message ?? `HTTP ${res.status}`,
      err?.request_id ?? res.headers.get('X-Request-Id'),
      err ?? {},
    );
  }
  return json as T;
}

export const enc = encodeURIComponent;
