import { useState } from 'preact/hooks';
import { AccountSources } from './accounts.tsx';
import { api, enc } from './api.ts';
import { desktop } from './bridge.ts';
import { CopyField } from './copy-button.tsx';
import { useSheetChanges } from './live.ts';
import { quantity } from './quantity.ts';
import { QueryBar } from './query-bar.tsx';
import { TabsLoading, useReadProgress } from './read-progress.tsx';
import { Scrollable } from './scrollable.tsx';
import { Empty, ErrorNote, Loading } from './status.tsx';
import { TunnelNote } from './tunnel.tsx';
import { TypedCell } from './typed-cell.tsx';
import type { Connection, ConnectionDetail, Preview } from './types.ts';
import { useResource } from './use-resource.ts';
import { useSubmit } from './use-submit.ts';

/**
 * Sheets: the registered spreadsheets, their tabs with a typed preview (read again when the server says the tab
 * changed), endpoints, settings; add a local workbook, log in to an account and add its spreadsheets; remove.
 */
export function SheetsSection() {
  const list = useResource(() => api<{ data: Connection[] }>('/admin/connections'), 'connections');
  const changes = useSheetChanges();
  return (
    <section aria-labelledby="sheets-title">
      <h2 id="sheets-title">Sheets</h2>
      <TunnelNote />
      <AddWorkbook onAdded={list.reload} />
      {list.error ? <ErrorNote error={list.error} /> : null}
      {list.loading && !list.data ? <Loading what="spreadsheets" /> : null}
      {list.data && list.data.data.length === 0 ? (
        <Empty>No spreadsheets yet. Add a local workbook above, or a spreadsheet of an account below.</Empty>
      ) : null}
      {list.data?.data.map((c) => (
        <ConnectionCard key={c.spreadsheet_id} connection={c} onChanged={list.reload} changes={changes} />
      ))}
      {/* After the list, so the spreadsheets stay at the top of the page. */}
      <AccountSources onAdded={list.reload} />
    </section>
  );
}

function AddWorkbook({ onAdded }: { onAdded: () => void }) {
  const [location, setLocation] = useState('');
  const [name, setName] = useState('');
  // The desktop app's system file dialog; a browser types the path.
  const canPick = Boolean(desktop()?.pickFile);
  const choose = async () => {
    const picked = await desktop()?.pickFile?.();
    if (picked) setLocation(picked);
  };
  const { busy, error, submit } = useSubmit(async () => {
    await api('/admin/connections', {
      method: 'POST',
      body: { location: location.trim(), ...(name.trim() ? { name: name.trim() } : {}) },
    });
    setLocation('');
    setName('');
    onAdded();
  });
  return (
    <form class="card form-row" onSubmit={submit} aria-labelledby="add-workbook-title">
      <h3 id="add-workbook-title">Add a local workbook</h3>
      <label>
        Path of a workbook (.xlsx, .xlsm or .csv)
        <input
          type="text"
          required
          value={location}
          onInput={(e) => setLocation(e.currentTarget.value)}
          placeholder="/home/me/orders.xlsx"
          autoComplete="off"
        />
      </label>
      {canPick ? (
        <button type="button" onClick={choose}>
          Choose file…
        </button>
      ) : null}
      <label>
        Name (optional)
        <input type="text" value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="off" />
      </label>
      <button type="submit" disabled={busy}>
        {busy ? 'Adding…' : 'Add workbook'}
      </button>
      {error ? <ErrorNote error={error} /> : null}
    </form>
  );
}

function ConnectionCard({
  connection,
  onChanged,
  changes,
}: {
  connection: Connection;
  onChanged: () => void;
  /** How often each tab (and spreadsheet) changed since the page opened: a move reads it again. */
  changes: Record<string, number>;
}) {
  const detail = useResource(
    () => api<ConnectionDetail>(`/admin/connections/${enc(connection.spreadsheet_id)}`),
    `${connection.spreadsheet_id}/${changes[connection.spreadsheet_id] ?? 0}`,
  );
  const readFraction = useReadProgress(connection.spreadsheet_id, detail.loading && !detail.data);
  const [tab, setTab] = useState<string | null>(null);
  const sheets = detail.data?.sheets ?? [];
  const shown = sheets.find((s) => s.name === tab) ?? sheets[0] ?? null;

  const titleId = `conn-${connection.spreadsheet_id}`;
  return (
    <article class="card" aria-labelledby={titleId}>
      <header class="card-head">
        <h3 id={titleId}>{connection.name}</h3>
        <span class="muted">
          {connection.source} · <code>{connection.location}</code>
        </span>
        {connection.read_only ? (
          <span
            class="badge pending"
            title="Its owner made the file read-only: SheetPort refuses writes to it"
          >
            read-only: writes refused
          </span>
        ) : null}
      </header>
      <ConnectionSettings connection={connection} onChanged={onChanged} />
      {detail.error ? <ErrorNote error={detail.error} /> : null}
      {detail.loading && !detail.data ? <TabsLoading fraction={readFraction} /> : null}
      {detail.data && sheets.length === 0 ? <Empty>This spreadsheet has no tabs.</Empty> : null}
      {sheets.length > 0 ? (
        <TabChoice connection={connection} sheets={sheets} shownId={shown?.sheet_id} onChoose={setTab} />
      ) : null}
      {shown ? (
        <TabPanel
          connection={connection}
          sheetName={shown.name}
          sheetId={shown.sheet_id}
          version={changes[shown.sheet_id] ?? 0}
        />
      ) : null}
    </article>
  );
}

type PreviewValues = 'typed' | 'formatted' | 'formula';

/** The row API's `values=` modes, as the preview offers them. */
const PREVIEW_VALUES: [PreviewValues, string][] = [
  ['typed', 'Typed values'],
  ['formatted', 'As the sheet shows them'],
  ['formula', 'Formulas'],
];

function TabPanel({
  connection,
  sheetName,
  sheetId,
  version,
}: {
  connection: Connection;
  sheetName: string;
  sheetId: string;
  /** Moves when the server says this tab's rows changed: the preview is read again, the old rows shown meanwhile. */
  version: number;
}) {
  const [values, setValues] = useState<PreviewValues>('typed');
  const preview = useResource(
    () =>
      api<Preview>(
        `/admin/connections/${enc(connection.spreadsheet_id)}/sheets/${enc(sheetName)}/preview?limit=10&values=${values}`,
      ),
    `${connection.spreadsheet_id}/${sheetName}/${version}/${values}`,
  );
  const endpoint = `${window.location.origin}/v1/sheets/${enc(sheetId)}/rows`;
  const curl = connection.public_read
    ? `curl "${endpoint}"`
    : `curl -H "Authorization: Bearer $KEY" "${endpoint}"`;
  return (
    <div class="tab-panel">
      <div class="endpoint">
        <CopyField value={endpoint} label={`endpoint URL of ${sheetName}`} />
        <CopyField value={curl} label={`curl command for ${sheetName}`} />
      </div>
      <label class="inline">
        Show{' '}
        <select
          value={values}
          onChange={(e) => setValues((e.target as HTMLSelectElement).value as PreviewValues)}
        >
          {PREVIEW_VALUES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {preview.error ? <ErrorNote error={preview.error} /> : null}
      {preview.loading && !preview.data ? <Loading what="rows" /> : null}
      {preview.data && preview.data.rows.length === 0 ? <Empty>This tab has no rows yet.</Empty> : null}
      {preview.data && preview.data.rows.length > 0 ? (
        <PreviewTable preview={preview.data} sheetName={sheetName} values={values} />
      ) : null}
      <QueryBar
        spreadsheetId={connection.spreadsheet_id}
        sheetName={sheetName}
        sheetId={sheetId}
        version={version}
        publicRead={connection.public_read}
      />
    </div>
  );
}

/** Public read on or off, and removing the spreadsheet (asked twice). */
function ConnectionSettings({ connection, onChanged }: { connection: Connection; onChanged: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const togglePublic = async (on: boolean) => {
    setError(null);
    try {
      await api(`/admin/connections/${enc(connection.spreadsheet_id)}`, {
        method: 'PATCH',
        body: { public_read: on },
      });
      onChanged();
    } catch (err) {
      setError(err as Error);
    }
  };
  const remove = async () => {
    setError(null);
    try {
      await api(`/admin/connections/${enc(connection.spreadsheet_id)}?force=true`, { method: 'DELETE' });
      onChanged();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <>
      <div class="settings">
        <label class="inline">
          <input
            type="checkbox"
            checked={connection.public_read}
            onChange={(e) => togglePublic(e.currentTarget.checked)}
          />
          Public read (reads without an API key)
        </label>
        {confirming ? (
          <span class="confirm">
            Remove {connection.name} and its webhooks?{' '}
            <button type="button" class="danger" onClick={remove}>
              Yes, remove
            </button>{' '}
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" class="danger-outline" onClick={() => setConfirming(true)}>
            Remove
          </button>
        )}
      </div>
      {error ? <ErrorNote error={error} /> : null}
    </>
  );
}

/** The spreadsheet's tabs, one pressed: the one previewed. */
function TabChoice({
  connection,
  sheets,
  shownId,
  onChoose,
}: {
  connection: Connection;
  sheets: ConnectionDetail['sheets'];
  shownId: string | undefined;
  onChoose: (name: string) => void;
}) {
  return (
    <fieldset class="tabs">
      <legend class="visually-hidden">Tabs of {connection.name}</legend>
      {sheets.map((s) => (
        <button
          key={s.sheet_id}
          type="button"
          class="tab"
          aria-pressed={shownId === s.sheet_id}
          onClick={() => onChoose(s.name)}
        >
          {s.name} <span class="muted">({quantity(s.row_count, 'row')})</span>
        </button>
      ))}
    </fieldset>
  );
}

/** The first rows of a tab, in the chosen `values` mode. */
function PreviewTable({
  preview,
  sheetName,
  values,
}: {
  preview: Preview;
  sheetName: string;
  values: PreviewValues;
}) {
  return (
    <Scrollable class="table-wrap" label="Table (scrolls sideways)">
      <table>
        <caption>
          First {preview.rows.length} of {quantity(preview.row_count, 'row')} of {sheetName} (
          {PREVIEW_VALUES.find(([value]) => value === values)?.[1].toLowerCase()})
        </caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            {preview.header.map((h) => (
              <th scope="col" key={h}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {preview.rows.map((row, i) => (
            <tr key={i}>
              <td class="muted">{i + 1}</td>
              {row.map((v, j) => (
                <TypedCell key={j} value={v} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </Scrollable>
  );
}
