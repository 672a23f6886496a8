import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api.ts';

/**
 * Listens to one named event of the admin stream (GET /admin/events): `deliveries` when the delivery log moved,
 * `sheets` when rows of some tabs were recorded as changed. The stream is opened with a one-use stream token (an
 * EventSource cannot send the admin token as a header); when it drops, a new token opens a new stream after a
 * short wait.
 */
export function useAdminEvent(name: string, onEvent: (data: unknown) => void): { live: boolean } {
  const [live, setLive] = useState(false);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    let stopped = false;
    const open = async () => {
      try {
        const { stream_token } = await api<{ stream_token: string }>('/admin/events/token', {
          method: 'POST',
        });
        if (stopped) return;
        source = new EventSource(`/admin/events?stream_token=${encodeURIComponent(stream_token)}`);
        source.addEventListener(name, (e) => handler.current(JSON.parse((e as MessageEvent<string>).data)));
        source.onopen = () => setLive(true);
        source.onerror = () => {
          setLive(false);
          source?.close();
          if (!stopped) retry = setTimeout(open, 3000);
        };
      } catch {
        setLive(false);
        if (!stopped) retry = setTimeout(open, 3000);
      }
    };
    void open();
    return () => {
      stopped = true;
      source?.close();
      if (retry) clearTimeout(retry);
    };
  }, [name]);
  return { live };
}

/** A counter that moves whenever the server says the delivery log changed. */
export function useDeliveryUpdates(): { version: number; live: boolean } {
  const [version, setVersion] = useState(0);
  const { live } = useAdminEvent('deliveries', () => setVersion((v) => v + 1));
  return { version, live };
}

interface SheetsEvent {
  changed: { spreadsheet_id: string; sheet_id: string }[];
}

/**
 * How often each tab changed since the page opened, by public sheet id (and by spreadsheet id, for a
 * connection's tab list): a preview keyed on its count reads its tab again when it moves.
 */
export function useSheetChanges(): Record<string, number> {
  const [counts, setCounts] = useState<Record<string, number>>({});
  useAdminEvent('sheets', (data) => {
    const { changed } = data as SheetsEvent;
    if (!changed?.length) return;
    setCounts((before) => {
      const after = { ...before };
      for (const id of changed.flatMap((c) => [c.sheet_id, c.spreadsheet_id]))
        after[id] = (after[id] ?? 0) + 1;
      return after;
    });
  });
  return counts;
}
