import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, enc } from './api.ts';
import { desktop } from './bridge.ts';
import { Empty, ErrorNote } from './status.tsx';
import type { AccountKind, AccountLogin } from './types.ts';
import { useResource } from './use-resource.ts';
import { useSubmit } from './use-submit.ts';

/**
 * The kinds of source that log in to accounts (Google Sheets), as the server lists them: their accounts, a
 * login (the server runs it; the page opens the consent page and waits), logging out, and adding a spreadsheet
 * of that kind by its id or URL.
 */
export function AccountSources({ onAdded }: { onAdded: () => void }) {
  const kinds = useResource(() => api<{ data: AccountKind[] }>('/admin/accounts'), 'accounts');
  return (
    <>
      {kinds.error ? <ErrorNote error={kinds.error} /> : null}
      {kinds.data?.data.map((k) => (
        <AccountKindCard key={k.kind} kind={k} onChanged={kinds.reload} onAdded={onAdded} />
      ))}
    </>
  );
}

/** The consent page in the system browser (desktop app) or a new tab; the page also shows it as a link. */
function openConsentPage(url: string): void {
  const bridge = desktop();
  if (bridge?.openExternal) void bridge.openExternal(url);
  else window.open(url, '_blank', 'noopener,noreferrer');
}

const POLL_MS = 1000;

function useLogin(kind: string, onDone: () => void) {
  const [login, setLogin] = useState<AccountLogin | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const pending = login?.state === 'pending' ? login.login_id : null;
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(async () => {
      try {
        const now = await api<AccountLogin>(`/admin/accounts/${enc(kind)}/logins/${enc(pending)}`);
        if (now.state === 'pending') return;
        setLogin(now);
        onDone();
      } catch (err) {
        setError(err as Error);
        setLogin(null);
      }
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [kind, pending]);
  const start = async (allowFileStorage: boolean) => {
    setError(null);
    setLogin(null);
    try {
      const started = await api<AccountLogin>(`/admin/accounts/${enc(kind)}/logins`, {
        method: 'POST',
        body: { allow_file_storage: allowFileStorage },
      });
      setLogin(started);
      openConsentPage(started.consent_url);
    } catch (err) {
      setError(err as Error);
    }
  };
  return { login, error, start };
}

function AccountKindCard({
  kind,
  onChanged,
  onAdded,
}: {
  kind: AccountKind;
  onChanged: () => void;
  onAdded: () => void;
}) {
  const { login, error, start } = useLogin(kind.kind, onChanged);
  const [allowFile, setAllowFile] = useState(false);
  const [loggedOut, setLoggedOut] = useState<string | null>(null);
  const [logoutError, setLogoutError] = useState<Error | null>(null);
  const inFile = kind.storage === 'file';
  const titleId = `accounts-${kind.kind}`;

  const logout = async (account: string) => {
    setLogoutError(null);
    try {
      const out = await api<{ account: string; revoked: string }>(
        `/admin/accounts/${enc(kind.kind)}/${enc(account)}`,
        { method: 'DELETE' },
      );
      setLoggedOut(
        out.revoked === 'not_possible'
          ? `Logged out ${out.account}; ${kind.provider} could not be told, so remove SheetPort's access in your ${kind.provider} account settings.`
          : `Logged out ${out.account}; ${kind.provider} ended SheetPort's access.`,
      );
      onChanged();
    } catch (err) {
      setLogoutError(err as Error);
    }
  };

  return (
    <article class="card" aria-labelledby={titleId}>
      <h3 id={titleId}>{kind.provider} accounts</h3>
      {kind.accounts.length === 0 ? (
        <Empty>No {kind.provider} account is connected yet.</Empty>
      ) : (
        <ul class="accounts">
          {kind.accounts.map((a) => (
            <li key={a.account}>
              <span>{a.account}</span>
              {a.default ? <span class="muted"> (default)</span> : null}{' '}
              <button
                type="button"
                class="small danger-outline"
                aria-label={`Log out ${a.account}`}
                onClick={() => logout(a.account)}
              >
                Log out
              </button>
            </li>
          ))}
        </ul>
      )}
      {loggedOut ? <p role="status">{loggedOut}</p> : null}
      {logoutError ? <ErrorNote error={logoutError} /> : null}
      {inFile ? (
        <div class="storage-note">
          <p class="muted">
            No OS keychain holds this data dir's secrets (they are in <code>{kind.storage_where}</code>). A{' '}
            {kind.provider} login can be kept there only encrypted with the passphrase in{' '}
            <code>{kind.passphrase_env}</code>
            {kind.passphrase_set
              ? ', which the server has.'
              : ', which is not set: set it and restart the server.'}
          </p>
          <label class="inline">
            <input
              type="checkbox"
              checked={allowFile}
              disabled={!kind.passphrase_set}
              onChange={(e) => setAllowFile(e.currentTarget.checked)}
            />
            Keep the login in the secrets file, encrypted
          </label>
        </div>
      ) : null}
      <div class="actions">
        <button type="button" onClick={() => start(allowFile)} disabled={login?.state === 'pending'}>
          Connect {kind.provider} account
        </button>
      </div>
      <LoginState login={login} provider={kind.provider} />
      {error ? <ErrorNote error={error} /> : null}
      <AddByLocation kind={kind} onAdded={onAdded} />
    </article>
  );
}

function LoginState({ login, provider }: { login: AccountLogin | null; provider: string }) {
  if (!login) return null;
  if (login.state === 'pending') {
    return (
      <p role="status">
        Waiting for {provider}: allow access on the consent page.{' '}
        <a href={login.consent_url} target="_blank" rel="noopener noreferrer">
          Open the {provider} consent page
        </a>{' '}
        if no window opened.
      </p>
    );
  }
  if (login.state === 'succeeded') {
    return <p role="status">Signed in as {login.account} (now the default account).</p>;
  }
  const failure = login.error ?? { code: 'error', message: 'The login failed.' };
  return <ErrorNote error={new ApiError(200, failure.code, failure.message, null)} />;
}

/** A spreadsheet of this kind, by what identifies it there (a Google spreadsheet id or URL). */
function AddByLocation({ kind, onAdded }: { kind: AccountKind; onAdded: () => void }) {
  const [location, setLocation] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await api('/admin/connections', {
      method: 'POST',
      body: { location: location.trim(), kind: kind.kind },
    });
    setLocation('');
    onAdded();
  });
  const titleId = `add-${kind.kind}-title`;
  return (
    <form class="form-row" onSubmit={submit} aria-labelledby={titleId}>
      <h4 id={titleId}>Add a {kind.provider} spreadsheet</h4>
      <label>
        Id or URL ({kind.describe})
        <input
          type="text"
          required
          value={location}
          onInput={(e) => setLocation(e.currentTarget.value)}
          autoComplete="off"
        />
      </label>
      <button type="submit" disabled={busy}>
        {busy ? 'Adding…' : 'Add spreadsheet'}
      </button>
      {error ? <ErrorNote error={error} /> : null}
    </form>
  );
}
