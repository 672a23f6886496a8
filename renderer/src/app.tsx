import type { JSX } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import {
  ApiError,
  currentSession,
  SIGNED_OUT_EVENT,
  signInWithCode,
  signInWithToken,
  signOut,
  takeSignInCode,
} from './api.ts';
import { DeliveriesSection } from './deliveries.tsx';
import { KeysSection } from './keys.tsx';
import { McpSection } from './mcp.tsx';
import { RequestsSection } from './requests.tsx';
import { SheetsSection } from './sheets.tsx';
import { WebhooksSection } from './webhooks.tsx';

const SECTIONS = [
  { id: 'sheets', label: 'Sheets', view: SheetsSection },
  { id: 'keys', label: 'Keys', view: KeysSection },
  { id: 'mcp', label: 'AI assistants', view: McpSection },
  { id: 'webhooks', label: 'Webhooks', view: WebhooksSection },
  { id: 'deliveries', label: 'Delivery log', view: DeliveriesSection },
  { id: 'requests', label: 'Requests', view: RequestsSection },
] as const;

type SectionId = (typeof SECTIONS)[number]['id'];

function sectionFromHash(): SectionId {
  const id = window.location.hash.replace(/^#\/?/, '');
  return SECTIONS.find((s) => s.id === id)?.id ?? 'sheets';
}

/** Why the sign-in screen shows: nothing yet, a spent or expired link, or a session that ended. */
type SignInNotice = 'none' | 'expired' | 'ended';

export function App() {
  const session = useSession();
  const section = useSection();
  if (session.exchanging) {
    return (
      <main id="main" class="signin">
        <h1>SheetPort dashboard</h1>
        <p role="status">Signing in…</p>
      </main>
    );
  }
  if (!session.signedIn) {
    return <SignIn notice={session.notice} error={session.exchangeError} onSignedIn={session.signedInNow} />;
  }
  const View = SECTIONS.find((s) => s.id === section)!.view;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <TopBar section={section} onSignOut={session.signOutNow} />
      <main id="main" tabIndex={-1}>
        <View />
      </main>
    </>
  );
}

/** Whether the page is signed in: a sign-in code in the address is traded first; a session that ends signs out. */
function useSession() {
  // Read once, before the first paint: the code leaves the address bar at once.
  const [code] = useState(() => takeSignInCode());
  const [signedIn, setSignedIn] = useState(() => code === null && currentSession() !== null);
  const [exchanging, setExchanging] = useState(code !== null);
  const [notice, setNotice] = useState<SignInNotice>('none');
  const [exchangeError, setExchangeError] = useState<unknown>(null);
  useEffect(() => {
    if (code === null) return;
    signInWithCode(code).then(
      (ok) => {
        setExchanging(false);
        setSignedIn(ok);
        if (!ok) setNotice('expired');
      },
      (err: unknown) => {
        setExchanging(false);
        setExchangeError(err);
      },
    );
  }, [code]);
  useEffect(() => {
    const onSignedOut = () => {
      setSignedIn(false);
      setNotice('ended');
    };
    window.addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => window.removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
  }, []);
  return {
    signedIn,
    exchanging,
    notice,
    exchangeError,
    signedInNow: () => {
      setNotice('none');
      setSignedIn(true);
    },
    signOutNow: () => {
      void signOut();
      setNotice('none');
      setSignedIn(false);
    },
  };
}

/** The section the address names (`#keys`), followed as it changes. */
function useSection(): SectionId {
  const [section, setSection] = useState<SectionId>(() => sectionFromHash());
  useEffect(() => {
    const onHash = () => setSection(sectionFromHash());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  // Focus moves to the new section's heading, so keyboard and screen-reader users land where the content is.
  // Not on the first render: a fresh page starts at the top (skip link first), as pages do.
  // A layout effect, so focus has moved by the time the new section is painted (a plain effect runs a frame later).
  const firstRender = useRef(true);
  useLayoutEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [section]);
  return section;
}

/** The title, the sections and Sign out. */
function TopBar({ section, onSignOut }: { section: SectionId; onSignOut: () => void }) {
  return (
    <header class="top">
      <h1>SheetPort</h1>
      <nav aria-label="Sections">
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.id}>
              <a href={`#${s.id}`} aria-current={s.id === section ? 'page' : undefined}>
                {s.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <button type="button" class="small" onClick={onSignOut}>
        Sign out
      </button>
    </header>
  );
}

const AGAIN = (
  <>
    open the dashboard again from the tray menu or with <code>sheetport dashboard</code>.
  </>
);
const NOTICES: Record<Exclude<SignInNotice, 'none'>, JSX.Element> = {
  expired: <>This sign-in link has expired or was used; {AGAIN}</>,
  ended: <>Your session has ended (the admin token was rotated, or the server restarted); {AGAIN}</>,
};

/** Signed out: how to get in (`sheetport dashboard` opens a one-use sign-in link), or paste the admin token. */
function SignIn({
  notice,
  error,
  onSignedIn,
}: {
  notice: SignInNotice;
  error: unknown;
  onSignedIn: () => void;
}) {
  const [value, setValue] = useState('');
  const [failure, setFailure] = useState<unknown>(error);
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="signin">
      <h1>SheetPort dashboard</h1>
      {notice !== 'none' && (
        <p class="state error" role="alert">
          {NOTICES[notice]}
        </p>
      )}
      <p>
        Open the dashboard with <code>sheetport dashboard</code> (or from the tray menu): it opens this page
        with a sign-in link that works once, for a minute. Or paste the admin token that{' '}
        <code>sheetport admin-token</code> prints.
      </p>
      <form
        class="card form-row"
        onSubmit={(e) => {
          e.preventDefault();
          const token = value.trim();
          if (!token || busy) return;
          setBusy(true);
          signInWithToken(token).then(
            () => {
              setValue('');
              onSignedIn();
            },
            (err: unknown) => {
              setBusy(false);
              setFailure(err);
            },
          );
        }}
      >
        <label>
          Admin token
          <input
            type="password"
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
            autoComplete="off"
          />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      {failure !== null && (
        <p class="state error" role="alert">
          {failure instanceof ApiError && failure.status === 401
            ? 'That is not the admin token of this server (a rotation replaces it; sheetport admin-token prints the current one).'
            : failure instanceof Error
              ? failure.message
              : String(failure)}
        </p>
      )}
    </main>
  );
}
