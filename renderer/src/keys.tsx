import { useState } from 'preact/hooks';
import { api, enc } from './api.ts';
import { CopyField } from './copy-button.tsx';
import { quantity } from './quantity.ts';
import { Scrollable } from './scrollable.tsx';
import { dailySeries, Sparkline } from './sparkline.tsx';
import { Empty, ErrorNote, Loading } from './status.tsx';
import type { ApiKey, Connection, UsageReport } from './types.ts';
import { useResource } from './use-resource.ts';
import { useSubmit } from './use-submit.ts';

/** Keys: create (shown once), list with today's usage and a 30-day sparkline, change plan, revoke. */
export function KeysSection() {
  const keys = useResource(() => api<{ data: ApiKey[] }>('/admin/keys'), 'keys');
  const connections = useResource(() => api<{ data: Connection[] }>('/admin/connections'), 'connections');
  const nameOf = (id: string) => connections.data?.data.find((c) => c.spreadsheet_id === id)?.name ?? id;
  const [created, setCreated] = useState<{ id: string; key: string } | null>(null);
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <CreateKey
        onCreated={(k) => {
          setCreated(k);
          keys.reload();
        }}
      />
      {created ? (
        <div class="card once" role="status">
          <h3>New key {created.id}</h3>
          <p>Copy it now: it is shown this once and cannot be shown again.</p>
          <CopyField value={created.key} label="new API key" />
          <button type="button" class="small" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      ) : null}
      {keys.error ? <ErrorNote error={keys.error} /> : null}
      {keys.loading && !keys.data ? <Loading what="keys" /> : null}
      {keys.data && keys.data.data.length === 0 ? <Empty>No API keys yet. Create one above.</Empty> : null}
      {keys.data && keys.data.data.length > 0 ? (
        <Scrollable class="table-wrap" label="Table (scrolls sideways)">
          <table class="stack">
            <caption>API keys (never the keys themselves)</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Scope</th>
                <th scope="col">Spreadsheets</th>
                <th scope="col">Plan</th>
                <th scope="col">Today</th>
                <th scope="col">Last 30 days</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((k) => (
                <KeyRow key={k.id} apiKey={k} onChanged={keys.reload} nameOf={nameOf} />
              ))}
            </tbody>
          </table>
        </Scrollable>
      ) : null}
    </section>
  );
}

function CreateKey({ onCreated }: { onCreated: (k: { id: string; key: string }) => void }) {
  const connections = useResource(() => api<{ data: Connection[] }>('/admin/connections'), 'connections');
  const [name, setName] = useState('');
  const [scope, setScope] = useState('read');
  const [plan, setPlan] = useState('free');
  const [reach, setReach] = useState<string[]>([]);
  const [formulas, setFormulas] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    const k = await api<ApiKey & { key: string }>('/admin/keys', {
      method: 'POST',
      body: { name, scope, plan, connections: reach, allow_formulas: formulas },
    });
    setName('');
    setReach([]);
    onCreated({ id: k.id, key: k.key });
  });
  return (
    <form class="card form-row" onSubmit={submit} aria-labelledby="create-key-title">
      <h3 id="create-key-title">Create a key</h3>
      <label>
        Name
        <input type="text" value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="off" />
      </label>
      <label>
        Scope
        <select value={scope} onChange={(e) => setScope(e.currentTarget.value)}>
          <option value="read">read</option>
          <option value="read_write">read_write</option>
        </select>
      </label>
      <label>
        Plan
        <select value={plan} onChange={(e) => setPlan(e.currentTarget.value)}>
          <option value="free">free</option>
          <option value="pro">pro</option>
        </select>
      </label>
      <fieldset>
        <legend>Spreadsheets (none ticked = all)</legend>
        {connections.data?.data.length ? null : <span class="muted">No spreadsheets yet.</span>}
        {connections.data?.data.map((c) => (
          <label class="inline" key={c.spreadsheet_id}>
            <input
              type="checkbox"
              checked={reach.includes(c.spreadsheet_id)}
              onChange={(e) =>
                setReach(
                  e.currentTarget.checked
                    ? [...reach, c.spreadsheet_id]
                    : reach.filter((id) => id !== c.spreadsheet_id),
                )
              }
            />
            {c.name}
          </label>
        ))}
      </fieldset>
      <label class="inline">
        <input type="checkbox" checked={formulas} onChange={(e) => setFormulas(e.currentTarget.checked)} />
        May write formulas
      </label>
      <button type="submit" disabled={busy}>
        {busy ? 'Creating…' : 'Create key'}
      </button>
      {error ? <ErrorNote error={error} /> : null}
    </form>
  );
}

/** Which spreadsheets a key may reach: every one, or only those it was limited to (by name, ids on hover). */
function Reach({ ids, nameOf }: { ids: string[]; nameOf: (id: string) => string }) {
  if (ids.length === 0) return <span>All spreadsheets</span>;
  return (
    <span class="reach" title={ids.join(', ')}>
      Only {ids.map(nameOf).join(', ')}
    </span>
  );
}

function KeyRow({
  apiKey,
  onChanged,
  nameOf,
}: {
  apiKey: ApiKey;
  onChanged: () => void;
  nameOf: (id: string) => string;
}) {
  const usage = useResource(() => api<UsageReport>(`/admin/keys/${enc(apiKey.id)}/usage`), apiKey.id);
  const [error, setError] = useState<Error | null>(null);
  const act = async (run: () => Promise<unknown>) => {
    setError(null);
    try {
      await run();
      onChanged();
    } catch (err) {
      setError(err as Error);
    }
  };
  const series = usage.data ? dailySeries(usage.data.days) : null;
  const label = `${apiKey.name || apiKey.id}`;
  return (
    <tr class={apiKey.revoked_at ? 'revoked' : ''}>
      <th scope="row">
        {apiKey.name || <span class="muted">(no name)</span>}
        <div class="muted">
          <code>{apiKey.id}</code> · <code>{apiKey.prefix}…</code>
        </div>
        {error ? <ErrorNote error={error} /> : null}
      </th>
      <td data-label="Scope">{apiKey.scope}</td>
      <td data-label="Spreadsheets">
        <Reach ids={apiKey.connections} nameOf={nameOf} />
      </td>
      <td data-label="Plan">
        <PlanChoice apiKey={apiKey} label={label} act={act} />
        <div class="muted">
          {apiKey.limits.per_second}/s, {apiKey.limits.daily}/day
        </div>
      </td>
      <td data-label="Today">{apiKey.today?.requests ?? 0}</td>
      <td data-label="Last 30 days">
        <UsageSparkline series={series} />
      </td>
      <td data-label="Status">
        {apiKey.revoked_at ? `revoked ${apiKey.revoked_at.slice(0, 10)}` : 'active'}
      </td>
      <td>{apiKey.revoked_at ? null : <RevokeButton apiKey={apiKey} label={label} act={act} />}</td>
    </tr>
  );
}

type Act = (run: () => Promise<unknown>) => Promise<void>;

/** The key's plan: a choice between free and pro while it is active and not enterprise. */
function PlanChoice({ apiKey, label, act }: { apiKey: ApiKey; label: string; act: Act }) {
  return (
    <>
      {apiKey.revoked_at || apiKey.plan === 'enterprise' ? (
        apiKey.plan
      ) : (
        <select
          aria-label={`Plan of ${label}`}
          value={apiKey.plan}
          onChange={(e) =>
            act(() =>
              api(`/admin/keys/${enc(apiKey.id)}`, {
                method: 'PATCH',
                body: { plan: e.currentTarget.value },
              }),
            )
          }
        >
          <option value="free">free</option>
          <option value="pro">pro</option>
        </select>
      )}
    </>
  );
}

/** Requests per day over the last 30 days, or an ellipsis while they load. */
function UsageSparkline({ series }: { series: number[] | null }) {
  return (
    <>
      {series ? (
        <Sparkline
          points={series}
          label={`${quantity(
            series.reduce((a, b) => a + b, 0),
            'request',
          )} in 30 days, at most ${Math.max(...series)} a day`}
        />
      ) : (
        <span class="muted">…</span>
      )}
    </>
  );
}

/** Revoke, asked twice. */
function RevokeButton({ apiKey, label, act }: { apiKey: ApiKey; label: string; act: Act }) {
  const [confirming, setConfirming] = useState(false);
  return confirming ? (
    <>
      <button
        type="button"
        class="danger small"
        onClick={() => act(() => api(`/admin/keys/${enc(apiKey.id)}`, { method: 'DELETE' }))}
      >
        Yes, revoke {label}
      </button>{' '}
      <button type="button" class="small" onClick={() => setConfirming(false)}>
        Cancel
      </button>
    </>
  ) : (
    <button type="button" class="danger-outline small" onClick={() => setConfirming(true)}>
      Revoke<span class="visually-hidden"> {label}</span>
    </button>
  );
}
