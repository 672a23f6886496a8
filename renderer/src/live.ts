import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';

/**
 * A counter that moves whenever the server says the delivery log changed (GET /admin/events). The stream is
 * opened with a one-use stream token (an EventSource cannot send the admin token as a header); when it drops,
 * a new token opens a new stream after a short wait.
 */
export function useDeliveryUpdates(): { version: number; live: boolean } {
  const [version, setVersion] = useState(0);
  const [live, setLive] = useState(false);
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
        source.addEventListener('deliveries', () => setVersion((v) => v + 1));
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
  }, []);
  return { version, live };
}
