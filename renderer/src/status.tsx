import type { ComponentChildren } from 'preact';
import { ApiError } from './api.ts';

/** Loading, error and empty states, the same everywhere. */
export function Loading({ what }: { what: string }) {
  return (
    <p class="state" role="status">
      Loading {what}…
    </p>
  );
}

export function ErrorNote({ error }: { error: Error }) {
  const requestId = error instanceof ApiError ? error.requestId : null;
  return (
    <div class="state error" role="alert">
      <strong>{error instanceof ApiError && error.code !== 'network' ? `${error.code}: ` : ''}</strong>
      {error.message}
      {requestId ? <span class="muted"> (request {requestId})</span> : null}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="state empty">{children}</p>;
}
