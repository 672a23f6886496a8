import { api } from './api.ts';
import { desktop } from './bridge.ts';
import { CopyField } from './copy-button.tsx';
import { useResource } from './use-resource.ts';

/** `GET /admin/tunnel` (docs/api.md). */
interface Tunnel {
  state: 'off' | 'starting' | 'open' | 'failed';
  url: string | null;
  error: string | null;
  provider: string;
  exposes: string[];
}

/**
 * The optional public tunnel: its URL while open, with what it serves; otherwise one line saying it is off (or why
 * it did not open) and how to open it. Read when the section opens; the tray shows changes at once.
 */
export function TunnelNote() {
  const tunnel = useResource(() => api<Tunnel>('/admin/tunnel'), 'tunnel');
  const t = tunnel.data;
  if (!t) return null; // the sections below already say when the admin API cannot be reached
  if (t.state === 'open' && t.url) {
    return (
      <div class="card" role="note" aria-labelledby="tunnel-title">
        <h3 id="tunnel-title">Public tunnel ({t.provider})</h3>
        <p>
          Serves{' '}
          {t.exposes.map((p, i) => [
            i === 0 ? '' : i === t.exposes.length - 1 ? ' and ' : ', ',
            <code key={p}>{p}</code>,
          ])}{' '}
          only, never this dashboard or <code>/admin</code>. API keys are needed there as here; a public-read
          spreadsheet can be read by anyone who has its link.
        </p>
        <CopyField value={t.url} label="public tunnel URL" />
      </div>
    );
  }
  const state =
    t.state === 'failed'
      ? `did not open: ${t.error ?? 'unknown reason'}`
      : t.state === 'starting'
        ? 'opening…'
        : 'off';
  // The tray menu exists only for the desktop app's window (its preload bridge is there); a browser gets the CLI.
  const where = desktop() ? 'from the tray menu or with ' : 'with ';
  return (
    <p class="muted">
      Public tunnel: {state}. Open it {where}
      <code>sheetport serve --tunnel</code>, after <code>sheetport tunnel token</code>.
    </p>
  );
}
