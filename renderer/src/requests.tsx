import { useState } from 'preact/hooks';
import { api } from './api.ts';
import { Scrollable } from './scrollable.tsx';
import { Empty, ErrorNote, Loading } from './status.tsx';
import type { RequestLine } from './types.ts';
import { useResource } from './use-resource.ts';

/** Requests: the recent request log, newest first; find one by its request_id. */
export function RequestsSection() {
  const [typed, setTyped] = useState('');
  const [requestId, setRequestId] = useState('');
  const query = requestId ? `?request_id=${encodeURIComponent(requestId)}` : '';
  const lines = useResource(() => api<{ data: RequestLine[] }>(`/admin/requests${query}`), query);
  return (
    <section aria-labelledby="requests-title">
      <h2 id="requests-title">Requests</h2>
      <form
        class="card form-row"
        onSubmit={(e) => {
          e.preventDefault();
          setRequestId(typed.trim());
        }}
        aria-label="Find a request"
      >
        <label>
          Request id (from an error's request_id or X-Request-Id)
          <input
            type="search"
            value={typed}
            onInput={(e) => setTyped(e.currentTarget.value)}
            autoComplete="off"
          />
        </label>
        <button type="submit">Find</button>
        <button type="button" onClick={lines.reload}>
          Refresh
        </button>
      </form>
      {lines.error ? <ErrorNote error={lines.error} /> : null}
      {lines.loading && !lines.data ? <Loading what="the request log" /> : null}
      {lines.data && lines.data.data.length === 0 ? (
        <Empty>{requestId ? `No request ${requestId} in the recent log.` : 'No requests logged yet.'}</Empty>
      ) : null}
      {lines.data && lines.data.data.length > 0 ? (
        <Scrollable class="table-wrap" label="Table (scrolls sideways)">
          <table>
            <caption>Recent requests, newest first</caption>
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
              {lines.data.data.map((l, i) => (
                <tr key={`${l.request_id}-${i}`}>
                  <td>{l.time ? new Date(l.time).toLocaleTimeString() : '—'}</td>
                  <td>
                    <span
                      class={`badge ${l.status >= 500 ? 'failed' : l.status >= 400 ? 'pending' : 'succeeded'}`}
                    >
                      {l.status}
                    </span>
                  </td>
                  <td>{l.method}</td>
                  <td class="truncate">
                    <code>{l.path}</code>
                  </td>
                  <td>{l.key_id ?? '—'}</td>
                  <td>{l.duration_ms} ms</td>
                  <td>
                    <code>{l.request_id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scrollable>
      ) : null}
    </section>
  );
}
