import { useState } from 'preact/hooks';
import { api } from './api.ts';
import { FilterSelect } from './filter-select.tsx';
import { Scrollable } from './scrollable.tsx';
import { Empty, ErrorNote, Loading } from './status.tsx';
import type { ApiKey, RequestLine } from './types.ts';
import { useResource } from './use-resource.ts';

const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

/**
 * Requests: the recent request log, newest first; find one by its request_id, filter by status class, key and
 * path. The dashboard's own requests (`/admin`, `/ui`: this page's polling) are left out unless asked for.
 */
export function RequestsSection() {
  const keys = useResource(() => api<{ data: ApiKey[] }>('/admin/keys'), 'keys');
  const [requestId, setRequestId] = useState('');
  const [path, setPath] = useState('');
  const [status, setStatus] = useState('');
  const [keyId, setKeyId] = useState('');
  const [showDashboard, setShowDashboard] = useState(false);
  const query = new URLSearchParams({
    ...(requestId ? { request_id: requestId } : {}),
    ...(status ? { status } : {}),
    ...(keyId ? { key_id: keyId } : {}),
    ...(path ? { path } : {}),
    hide_dashboard: String(!showDashboard),
  }).toString();
  const lines = useResource(() => api<{ data: RequestLine[] }>(`/admin/requests?${query}`), query);
  const filtered = Boolean(requestId || status || keyId || path);
  return (
    <section aria-labelledby="requests-title">
      <h2 id="requests-title">Requests</h2>
      <RequestFilters
        keys={keys.data?.data ?? []}
        status={status}
        keyId={keyId}
        showDashboard={showDashboard}
        onFind={(id, typedPath) => {
          setRequestId(id);
          setPath(typedPath);
        }}
        onStatus={setStatus}
        onKey={setKeyId}
        onShowDashboard={setShowDashboard}
        onRefresh={lines.reload}
      />
      {lines.error ? <ErrorNote error={lines.error} /> : null}
      {lines.loading && !lines.data ? <Loading what="the request log" /> : null}
      {lines.data && lines.data.data.length === 0 ? (
        <Empty>
          {requestId
            ? `No request ${requestId} in the recent log.`
            : filtered
              ? 'No recent request matches these filters.'
              : 'No requests logged yet.'}
        </Empty>
      ) : null}
      {lines.data && lines.data.data.length > 0 ? (
        <RequestTable lines={lines.data.data} filtered={filtered} />
      ) : null}
    </section>
  );
}

/** Find a request by id or path (on submit), filter by status class and key, show the dashboard's own. */
function RequestFilters({
  keys,
  status,
  keyId,
  showDashboard,
  onFind,
  onStatus,
  onKey,
  onShowDashboard,
  onRefresh,
}: {
  keys: ApiKey[];
  status: string;
  keyId: string;
  showDashboard: boolean;
  onFind: (requestId: string, path: string) => void;
  onStatus: (value: string) => void;
  onKey: (value: string) => void;
  onShowDashboard: (show: boolean) => void;
  onRefresh: () => void;
}) {
  const [typedId, setTypedId] = useState('');
  const [typedPath, setTypedPath] = useState('');
  return (
    <form
      class="card form-row"
      onSubmit={(e) => {
        e.preventDefault();
        onFind(typedId.trim(), typedPath.trim());
      }}
      aria-label="Find and filter requests"
    >
      <label>
        Request id (from an error's request_id or X-Request-Id)
        <input
          type="search"
          value={typedId}
          onInput={(e) => setTypedId(e.currentTarget.value)}
          autoComplete="off"
        />
      </label>
      <label>
        Path contains
        <input
          type="search"
          value={typedPath}
          onInput={(e) => setTypedPath(e.currentTarget.value)}
          placeholder="/v1/sheets"
          autoComplete="off"
        />
      </label>
      <FilterSelect
        label="Status"
        any="Any status"
        value={status}
        options={STATUS_CLASSES}
        onChange={onStatus}
      />
      <FilterSelect
        label="Key"
        any="Any key"
        value={keyId}
        options={keys.map((k) => ({
          value: k.id,
          label: k.name ? `${k.name} (${k.id})` : k.id,
        }))}
        onChange={onKey}
      />
      <button type="submit">Find</button>
      <button type="button" onClick={onRefresh}>
        Refresh
      </button>
      <label class="inline">
        <input
          type="checkbox"
          checked={showDashboard}
          onChange={(e) => onShowDashboard(e.currentTarget.checked)}
        />
        <span>
          Show the dashboard's own requests (<code>/admin</code>, <code>/ui</code>)
        </span>
      </label>
    </form>
  );
}

/** The log's lines, newest first. */
function RequestTable({ lines, filtered }: { lines: RequestLine[]; filtered: boolean }) {
  return (
    <Scrollable class="table-wrap" label="Table (scrolls sideways)">
      <table class="stack">
        <caption>Recent requests, newest first{filtered ? ' (filtered)' : ''}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Status</th>
            <th scope="col">Method</th>
            <th scope="col">Path</th>
            <th scope="col">Key</th>
            <th scope="col">Duration</th>
            <th scope="col">Request id</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l, i) => (
            <tr key={`${l.request_id}-${i}`}>
              <td data-label="Time">{l.time ? new Date(l.time).toLocaleTimeString() : '—'}</td>
              <td data-label="Status">
                <span
                  class={`badge ${l.status >= 500 ? 'failed' : l.status >= 400 ? 'pending' : 'succeeded'}`}
                >
                  {l.status}
                </span>
              </td>
              <td data-label="Method">{l.method}</td>
              <td
                data-label="Path"
                class="truncate"
                title={l.tool ? `MCP tool ${l.tool}: ${l.path}` : l.path}
              >
                {l.tool ? <span class="badge">MCP {l.tool} </span> : null}
                <code>{l.path}</code>
              </td>
              <td data-label="Key">{l.key_id ?? '—'}</td>
              <td data-label="Duration">{l.duration_ms} ms</td>
              <td data-label="Request id">
                <code>{l.request_id}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scrollable>
  );
}
