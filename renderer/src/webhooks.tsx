import { useState } from 'preact/hooks';
import { api, enc } from './api.ts';
import { CopyField } from './copy-button.tsx';
import { useDeliveryUpdates } from './live.ts';
import { quantity } from './quantity.ts';
import { Empty, ErrorNote, Loading } from './status.tsx';
import { type Connection, type ConnectionDetail, EVENTS, type Webhook, type WebhookHealth } from './types.ts';
import { useResource } from './use-resource.ts';
import { useSubmit } from './use-submit.ts';
import {
  type ConditionDraft,
  ConditionFields,
  conditionBody,
  conditionSummary,
  NO_CONDITION,
} from './webhook-condition.tsx';

/** Webhooks: create, edit URL and events, pause/resume, rotate the secret, delete; each one's health, live. */
export function WebhooksSection() {
  // Read again whenever the delivery log moves, so each card's health follows its receiver.
  const { version } = useDeliveryUpdates();
  const hooks = useResource(() => api<{ data: Webhook[] }>('/admin/webhooks'), `webhooks#${version}`);
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);
  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <CreateWebhook
        onCreated={(s) => {
          setSecret(s);
          hooks.reload();
        }}
      />
      {secret ? (
        <div class="card once" role="status">
          <h3>Signing secret of {secret.id}</h3>
          <p>Copy it now: it is shown this once. Your receiver checks signatures with it.</p>
          <CopyField value={secret.secret} label="webhook signing secret" />
          <button type="button" class="small" onClick={() => setSecret(null)}>
            Done
          </button>
        </div>
      ) : null}
      {hooks.error ? <ErrorNote error={hooks.error} /> : null}
      {hooks.loading && !hooks.data ? <Loading what="webhooks" /> : null}
      {hooks.data && hooks.data.data.length === 0 ? (
        <Empty>No webhooks yet. Register one above.</Empty>
      ) : null}
      {hooks.data?.data.map((w) => (
        <WebhookCard key={w.webhook_id} webhook={w} onChanged={hooks.reload} onSecret={setSecret} />
      ))}
    </section>
  );
}

function EventChoices({
  value,
  onChange,
  legend,
}: {
  value: string[];
  onChange: (v: string[]) => void;
  legend: string;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {EVENTS.map((e) => (
        <label class="inline" key={e}>
          <input
            type="checkbox"
            checked={value.includes(e)}
            onChange={(ev) =>
              onChange(ev.currentTarget.checked ? [...value, e] : value.filter((x) => x !== e))
            }
          />
          {e}
        </label>
      ))}
    </fieldset>
  );
}

function CreateWebhook({ onCreated }: { onCreated: (s: { id: string; secret: string }) => void }) {
  const connections = useResource(() => api<{ data: Connection[] }>('/admin/connections'), 'connections');
  const [url, setUrl] = useState('');
  const [spreadsheet, setSpreadsheet] = useState('');
  const [sheet, setSheet] = useState('');
  const [events, setEvents] = useState<string[]>([...EVENTS]);
  const [condition, setCondition] = useState<ConditionDraft>(NO_CONDITION);
  const chosen = spreadsheet || connections.data?.data[0]?.spreadsheet_id || '';
  const tabs = useResource(
    () => (chosen ? api<ConnectionDetail>(`/admin/connections/${enc(chosen)}`) : Promise.resolve(null)),
    chosen,
  );
  const sheetName = sheet || tabs.data?.sheets[0]?.name || '';
  const { busy, error, submit } = useSubmit(async () => {
    const w = await api<{ webhook_id: string; secret: string }>('/admin/webhooks', {
      method: 'POST',
      body: {
        url: url.trim(),
        spreadsheet_id: chosen,
        sheet_name: sheetName,
        events,
        ...conditionBody(condition),
      },
    });
    setUrl('');
    setCondition(NO_CONDITION);
    onCreated({ id: w.webhook_id, secret: w.secret });
  });
  if (connections.data && connections.data.data.length === 0) {
    return <Empty>Add a spreadsheet in Sheets first: a webhook watches one tab.</Empty>;
  }
  return (
    <form class="card form-row" onSubmit={submit} aria-labelledby="create-webhook-title">
      <h3 id="create-webhook-title">Register a webhook</h3>
      <label>
        Receiver URL
        <input
          type="url"
          required
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
          placeholder="https://example.com/hooks/sheetport"
        />
      </label>
      <label>
        Spreadsheet
        <select
          value={chosen}
          onChange={(e) => {
            setSpreadsheet(e.currentTarget.value);
            setSheet('');
          }}
        >
          {connections.data?.data.map((c) => (
            <option key={c.spreadsheet_id} value={c.spreadsheet_id}>
              {c.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Tab
        <select value={sheetName} onChange={(e) => setSheet(e.currentTarget.value)}>
          {tabs.data?.sheets.map((s) => (
            <option key={s.sheet_id} value={s.name}>
              {s.name}
            </option>
          ))}
        </select>
      </label>
      <EventChoices value={events} onChange={setEvents} legend="Events" />
      <ConditionFields
        value={condition}
        header={tabs.data?.sheets.find((s) => s.name === sheetName)?.header ?? null}
        onChange={setCondition}
      />
      <button type="submit" disabled={busy || !chosen || !sheetName}>
        {busy ? 'Registering…' : 'Register webhook'}
      </button>
      {error ? <ErrorNote error={error} /> : null}
    </form>
  );
}

const HEALTH_LABEL: Record<WebhookHealth['state'], string> = {
  none: 'no deliveries yet',
  ok: 'healthy',
  warning: 'last delivery failed',
  failing: 'failing',
};

/** The newest attempt (when and what came back) and how many failed in a row. */
function HealthLine({ health }: { health: WebhookHealth }) {
  if (health.last_attempt_at === null) return null;
  const ok = health.state === 'ok';
  const result = ok
    ? `succeeded${health.last_status === null ? '' : ` (${health.last_status})`}`
    : `failed: ${health.last_error ?? (health.last_status === null ? 'no answer' : `HTTP ${health.last_status}`)}`;
  return (
    <p class={`health ${health.state}`}>
      Last delivery {new Date(health.last_attempt_at).toLocaleString()} {result}
      {ok ? null : ` · ${quantity(health.failures_in_a_row, 'failure')} in a row`}
    </p>
  );
}

function WebhookCard({
  webhook,
  onChanged,
  onSecret,
}: {
  webhook: Webhook;
  onChanged: () => void;
  onSecret: (s: { id: string; secret: string }) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [url, setUrl] = useState(webhook.url);
  const [events, setEvents] = useState<string[]>(webhook.events);
  const [condition, setCondition] = useState<ConditionDraft>({
    where: webhook.where ?? '',
    columns: webhook.columns ?? [],
  });
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const path = `/admin/webhooks/${enc(webhook.webhook_id)}`;
  const act = async (run: () => Promise<unknown>) => {
    setError(null);
    try {
      await run();
      onChanged();
      return true;
    } catch (err) {
      setError(err as Error);
      return false;
    }
  };
  const save = async (e: Event) => {
    e.preventDefault();
    if (await act(() => api(path, { method: 'PATCH', body: { url, events, ...conditionBody(condition) } })))
      setEditing(false);
  };
  const titleId = `wh-${webhook.webhook_id}`;
  return (
    <article class="card" aria-labelledby={titleId}>
      <header class="card-head">
        <h3 id={titleId}>
          <code>{webhook.url}</code>
        </h3>
        {/* Active is not a colour of health: the health badge says whether the receiver answers. */}
        <span class={`badge ${webhook.status === 'paused' ? 'paused' : 'status'}`}>{webhook.status}</span>
        <span class={`badge ${webhook.health.state}`}>{HEALTH_LABEL[webhook.health.state]}</span>
      </header>
      <p class="muted">
        {webhook.webhook_id} · tab {webhook.sheet_name} · {webhook.events.join(', ')}
      </p>
      {conditionSummary(webhook) ? <p class="muted">{conditionSummary(webhook)}</p> : null}
      <HealthLine health={webhook.health} />
      {editing ? (
        <WebhookEditForm
          webhook={webhook}
          url={url}
          events={events}
          condition={condition}
          onUrl={setUrl}
          onEvents={setEvents}
          onCondition={setCondition}
          onSave={save}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <WebhookActions
          webhook={webhook}
          path={path}
          act={act}
          confirming={confirming}
          onConfirming={setConfirming}
          onEdit={() => setEditing(true)}
          onSecret={onSecret}
        />
      )}
      {error ? <ErrorNote error={error} /> : null}
    </article>
  );
}

/** A webhook's receiver URL, events and condition, changed together. */
function WebhookEditForm({
  webhook,
  url,
  events,
  condition,
  onUrl,
  onEvents,
  onCondition,
  onSave,
  onCancel,
}: {
  webhook: Webhook;
  url: string;
  events: string[];
  condition: ConditionDraft;
  onUrl: (url: string) => void;
  onEvents: (events: string[]) => void;
  onCondition: (c: ConditionDraft) => void;
  onSave: (e: Event) => void;
  onCancel: () => void;
}) {
  const detail = useResource(
    () => api<ConnectionDetail>(`/admin/connections/${enc(webhook.spreadsheet_id)}`),
    webhook.spreadsheet_id,
  );
  const header = detail.data?.sheets.find((s) => s.name === webhook.sheet_name)?.header ?? null;
  return (
    <form class="form-row" onSubmit={onSave}>
      <label>
        Receiver URL
        <input type="url" required value={url} onInput={(e) => onUrl(e.currentTarget.value)} />
      </label>
      <EventChoices value={events} onChange={onEvents} legend="Events" />
      <ConditionFields value={condition} header={header} onChange={onCondition} />
      <button type="submit">Save</button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

/** Edit, pause or resume, rotate the secret, delete (asked twice). */
function WebhookActions({
  webhook,
  path,
  act,
  confirming,
  onConfirming,
  onEdit,
  onSecret,
}: {
  webhook: Webhook;
  path: string;
  act: (run: () => Promise<unknown>) => Promise<boolean>;
  confirming: boolean;
  onConfirming: (confirming: boolean) => void;
  onEdit: () => void;
  onSecret: (s: { id: string; secret: string }) => void;
}) {
  return (
    <div class="actions">
      <button type="button" onClick={onEdit}>
        Edit
      </button>
      <button
        type="button"
        onClick={() =>
          act(() =>
            api(path, {
              method: 'PATCH',
              body: { status: webhook.status === 'active' ? 'paused' : 'active' },
            }),
          )
        }
      >
        {webhook.status === 'active' ? 'Pause' : 'Resume'}
      </button>
      <button
        type="button"
        onClick={() =>
          act(async () => {
            const r = await api<{ webhook_id: string; secret: string }>(`${path}/rotate-secret`, {
              method: 'POST',
            });
            onSecret({ id: r.webhook_id, secret: r.secret });
          })
        }
      >
        Rotate secret
      </button>
      {confirming ? (
        <>
          <button type="button" class="danger" onClick={() => act(() => api(path, { method: 'DELETE' }))}>
            Yes, delete
          </button>
          <button type="button" onClick={() => onConfirming(false)}>
            Cancel
          </button>
        </>
      ) : (
        <button type="button" class="danger-outline" onClick={() => onConfirming(true)}>
          Delete
        </button>
      )}
    </div>
  );
}
