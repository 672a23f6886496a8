import { useEffect, useState } from 'preact/hooks';
import { api, enc } from './api.ts';
import { FilterSelect } from './filter-select.tsx';
import { useDeliveryUpdates } from './live.ts';
import { quantity } from './quantity.ts';
import { Scrollable } from './scrollable.tsx';
import { shortTarget, shortUrl } from './short-url.ts';
import { Empty, ErrorNote, Loading } from './status.tsx';
import { type Delivery, type DeliveryDetail, EVENTS, STATES, type Webhook } from './types.ts';
import { useResource } from './use-resource.ts';

/** Delivery log: newest first, filters, one delivery in full (payload, headers, attempts), replay; live. */
export function DeliveriesSection() {
  const { version, live } = useDeliveryUpdates();
  const hooks = useResource(() => api<{ data: Webhook[] }>('/admin/webhooks'), 'webhooks');
  const [webhook, setWebhook] = useState('');
  const [state, setState] = useState('');
  const [event, setEvent] = useState('');
  const [selected, setSelected] = useState<Delivery | null>(null);
  const query = new URLSearchParams({
    ...(webhook ? { webhook_id: webhook } : {}),
    ...(state ? { state } : {}),
    ...(event ? { event } : {}),
    limit: '100',
  }).toString();
  const list = useResource(
    () => api<{ data: Delivery[]; meta: { total: number } }>(`/admin/deliveries?${query}`),
    `${query}#${version}`,
  );
  const urlOf = (id: string) => hooks.data?.data.find((w) => w.webhook_id === id)?.url ?? null;
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">
        Delivery log{' '}
        <span class={`badge ${live ? 'active' : 'paused'}`} role="status">
          {live ? 'live' : 'not live'}
        </span>
      </h2>
      <DeliveryFilters
        webhooks={hooks.data?.data ?? []}
        webhook={webhook}
        state={state}
        event={event}
        onWebhook={setWebhook}
        onState={setState}
        onEvent={setEvent}
      />
      <div class="split">
        <div>
          {list.error ? <ErrorNote error={list.error} /> : null}
          {list.loading && !list.data ? <Loading what="deliveries" /> : null}
          {list.data && list.data.data.length === 0 ? (
            <Empty>No deliveries{webhook || state || event ? ' match these filters' : ' yet'}.</Empty>
          ) : null}
          {list.data && list.data.data.length > 0 ? (
            <DeliveryTable
              deliveries={list.data.data}
              total={list.data.meta.total}
              selected={selected}
              onSelect={setSelected}
              urlOf={urlOf}
            />
          ) : null}
        </div>
        {selected ? <DeliveryPanel delivery={selected} version={version} onReplayed={list.reload} /> : null}
      </div>
    </section>
  );
}

/** The log's filters: by webhook, state and event. */
function DeliveryFilters({
  webhooks,
  webhook,
  state,
  event,
  onWebhook,
  onState,
  onEvent,
}: {
  webhooks: Webhook[];
  webhook: string;
  state: string;
  event: string;
  onWebhook: (value: string) => void;
  onState: (value: string) => void;
  onEvent: (value: string) => void;
}) {
  return (
    <form class="card form-row filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter deliveries">
      <FilterSelect
        label="Webhook"
        any="All webhooks"
        value={webhook}
        options={webhooks.map((w) => ({
          value: w.webhook_id,
          label: `${shortUrl(w.url, 40)} (${w.webhook_id})`,
        }))}
        onChange={onWebhook}
      />
      <FilterSelect label="State" any="Any state" value={state} options={STATES} onChange={onState} />
      <FilterSelect label="Event" any="Any event" value={event} options={EVENTS} onChange={onEvent} />
    </form>
  );
}

/** One page of the log, newest first; a row's button shows that delivery in full. */
function DeliveryTable({
  deliveries,
  total,
  selected,
  onSelect,
  urlOf,
}: {
  deliveries: Delivery[];
  total: number;
  selected: Delivery | null;
  onSelect: (delivery: Delivery) => void;
  urlOf: (webhookId: string) => string | null;
}) {
  return (
    <Scrollable class="table-wrap" label="Table (scrolls sideways)">
      <table class="stack">
        <caption>{quantity(total, 'delivery', 'deliveries')}, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Event</th>
            <th scope="col">State</th>
            <th scope="col">Attempts</th>
            <th scope="col">Webhook</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.delivery_id} class={selected?.delivery_id === d.delivery_id ? 'selected' : ''}>
              <td data-label="Created">
                <button
                  type="button"
                  class="link"
                  aria-pressed={selected?.delivery_id === d.delivery_id}
                  onClick={() => onSelect(d)}
                >
                  {new Date(d.created_at).toLocaleString()}
                  <span class="visually-hidden"> — show delivery {d.delivery_id}</span>
                </button>
              </td>
              <td data-label="Event">{d.event}</td>
              <td data-label="State">
                <span class={`badge ${d.state}`}>{d.state}</span>
              </td>
              <td data-label="Attempts">{d.attempts}</td>
              <td data-label="Webhook">
                <WebhookTarget id={d.webhook_id} url={urlOf(d.webhook_id)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scrollable>
  );
}

/** A delivery's webhook: its receiver, short (the host, then the path's end) with the whole URL on hover. */
function WebhookTarget({ id, url }: { id: string; url: string | null }) {
  if (url === null) return <code>{id}</code>;
  const { host, path } = shortTarget(url);
  return (
    <span class="target" title={`${url} (${id})`}>
      <span>{host}</span>
      <span>{path}</span>
    </span>
  );
}

/** The headers the latest attempt sent, as the server recorded them; what every attempt sends, before the first. */
function headersOf(d: DeliveryDetail): { title: string; headers: [string, string][] } {
  const sent = d.attempt_log.findLast((a) => a.request_headers !== null);
  if (sent?.request_headers)
    return {
      title: `Headers sent by attempt ${sent.attempt}`,
      headers: Object.entries(sent.request_headers),
    };
  return {
    title: 'Headers',
    headers: [
      ['Content-Type', 'application/json'],
      ['X-Service-Event', d.event],
      ['X-Service-Delivery', d.delivery_id],
      ['webhook-id', d.delivery_id],
      ['webhook-timestamp', '(the time of each attempt)'],
      ['X-Service-Signature, webhook-signature', '(signed with the secret at each attempt)'],
    ],
  };
}

function DeliveryPanel({
  delivery,
  version,
  onReplayed,
}: {
  delivery: Delivery;
  version: number;
  onReplayed: () => void;
}) {
  const detail = useResource(
    () =>
      api<DeliveryDetail>(
        `/admin/webhooks/${enc(delivery.webhook_id)}/deliveries/${enc(delivery.delivery_id)}`,
      ),
    `${delivery.delivery_id}#${version}`,
  );
  const [error, setError] = useState<Error | null>(null);
  const [replayed, setReplayed] = useState(false);
  const replay = async () => {
    setError(null);
    try {
      await api(
        `/admin/webhooks/${enc(delivery.webhook_id)}/deliveries/${enc(delivery.delivery_id)}/replay`,
        {
          method: 'POST',
        },
      );
      setReplayed(true);
      onReplayed();
      detail.reload();
    } catch (err) {
      setError(err as Error);
    }
  };
  const d = detail.data;
  useDueSoonRefresh(d, detail.reload, onReplayed);
  return (
    <aside class="card detail" aria-labelledby="delivery-title">
      <h3 id="delivery-title">Delivery {delivery.delivery_id}</h3>
      {detail.error ? <ErrorNote error={detail.error} /> : null}
      {detail.loading && !d ? <Loading what="the delivery" /> : null}
      {d ? (
        <>
          <p>
            <span class={`badge ${d.state}`}>{d.state}</span> · {d.event} · {quantity(d.attempts, 'attempt')}
            {d.next_attempt_at ? ` · next ${new Date(d.next_attempt_at).toLocaleTimeString()}` : ''}
          </p>
          <button type="button" onClick={replay} disabled={d.state === 'in_flight'}>
            Replay
          </button>
          <span role="status" class="muted">
            {replayed ? ' Replay queued.' : ''}
          </span>
          {error ? <ErrorNote error={error} /> : null}
          <h4>Attempts</h4>
          {d.attempt_log.length === 0 ? <Empty>Not attempted yet.</Empty> : null}
          {d.attempt_log.length > 0 ? <AttemptTable attempts={d.attempt_log} /> : null}
          <SentHeaders delivery={d} />
          <h4>Payload</h4>
          <Scrollable class="payload" label="Payload">
            <pre>{JSON.stringify(d.payload, null, 2)}</pre>
          </Scrollable>
        </>
      ) : null}
    </aside>
  );
}

/**
 * The stream says when the log changes; an attempt due within seconds is also watched here, so a replay that goes
 * out and settles between two looks of the stream still shows its outcome.
 */
function useDueSoonRefresh(d: DeliveryDetail | null, reload: () => void, onReplayed: () => void) {
  useEffect(() => {
    if (!d) return;
    const dueSoon =
      d.state === 'in_flight' ||
      (d.state === 'pending' &&
        d.next_attempt_at !== null &&
        Date.parse(d.next_attempt_at) - Date.now() < 15_000);
    if (!dueSoon) return;
    const timer = setTimeout(() => {
      reload();
      onReplayed();
    }, 1000);
    return () => clearTimeout(timer);
  }, [d, reload, onReplayed]);
}

/** Every attempt of a delivery: when, the receiver's status, how long, and its error or response. */
function AttemptTable({ attempts }: { attempts: DeliveryDetail['attempt_log'] }) {
  return (
    <Scrollable class="table-wrap" label="Table (scrolls sideways)">
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Started</th>
            <th scope="col">Status</th>
            <th scope="col">Duration</th>
            <th scope="col">Error / response</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((a) => (
            <tr key={a.attempt}>
              <td data-label="#">
                {a.attempt}
                {a.trigger === 'replay' ? ' (replay)' : ''}
              </td>
              <td data-label="Started">{new Date(a.started_at).toLocaleTimeString()}</td>
              <td data-label="Status">{a.status ?? '—'}</td>
              <td data-label="Duration">{a.duration_ms} ms</td>
              <td data-label="Error / response">
                {a.error ? <div class="error-text">{a.error}</div> : null}
                {a.response_excerpt ? <code class="excerpt">{a.response_excerpt}</code> : null}
                {a.target_address ? <div class="muted">to {a.target_address}</div> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scrollable>
  );
}

/** The headers the delivery was sent with (see headersOf). */
function SentHeaders({ delivery }: { delivery: DeliveryDetail }) {
  const { title, headers } = headersOf(delivery);
  return (
    <>
      <h4>{title}</h4>
      <dl class="headers">
        {headers.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}
