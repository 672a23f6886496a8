import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { forgetToken, saveToken, takeTokenFromUrl } from './api.ts';
import { DeliveriesSection } from './deliveries.tsx';
import { KeysSection } from './keys.tsx';
import { RequestsSection } from './requests.tsx';
import { SheetsSection } from './sheets.tsx';
import { WebhooksSection } from './webhooks.tsx';

const SECTIONS = [
  { id: 'sheets', label: 'Sheets', view: SheetsSection },
  { id: 'keys', label: 'Keys', view: KeysSection },
  { id: 'webhooks', label: 'Webhooks', view: WebhooksSection },
  { id: 'deliveries', label: 'Delivery log', view: DeliveriesSection },
  { id: 'requests', label: 'Requests', view: RequestsSection },
] as const;

type SectionId = (typeof SECTIONS)[number]['id'];

function sectionFromHash(): SectionId {
  const id = window.location.hash.replace(/^#\/?/, '');
  return SECTIONS.find((s) => s.id === id)?.id ?? 'sheets';
}

export function App() {
  const [token, setToken] = useState(() => takeTokenFromUrl());
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

  if (!token) return <SignIn onToken={setToken} />;
  const View = SECTIONS.find((s) => s.id === section)!.view;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
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
        <button
          type="button"
          class="small"
          onClick={() => {
            forgetToken();
            setToken(null);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <View />
      </main>
    </>
  );
}

/** Without a token: how to get in (the CLI prints a URL that carries it). */
function SignIn({ onToken }: { onToken: (t: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <main id="main" class="signin">
      <h1>SheetPort dashboard</h1>
      <p>
        Open the dashboard with <code>sheetport dashboard</code>: it opens this page already signed in. Or
        paste the admin token that <code>sheetport admin-token</code> prints.
      </p>
      <form
        class="card form-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (!value.trim()) return;
          saveToken(value.trim());
          onToken(value.trim());
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
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}
