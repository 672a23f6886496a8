import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { Loading } from './status.tsx';
import type { Connection } from './types.ts';

/** How often a card waiting for its spreadsheet's first read asks how far it has come. */
const POLL_MS = 1000;

/**
 * How far the first read of a spreadsheet has come (`reading` of `GET /admin/connections`), asked every second
 * while `waiting` (its tabs not answered yet); null when it is not being read or not waited on.
 */
export function useReadProgress(spreadsheetId: string, waiting: boolean): number | null {
  const [fraction, setFraction] = useState<number | null>(null);
  useEffect(() => {
    if (!waiting) {
      setFraction(null);
      return;
    }
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = async () => {
      try {
        const { data } = await api<{ data: Connection[] }>('/admin/connections');
        if (!live) return;
        setFraction(data.find((c) => c.spreadsheet_id === spreadsheetId)?.reading?.fraction ?? null);
      } catch {
        // The tabs' own request says what went wrong; the bar just stays as it was.
      }
      if (live) timer = setTimeout(ask, POLL_MS);
    };
    void ask();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [spreadsheetId, waiting]);
  return fraction;
}

/**
 * The tabs being read: a progress bar with the share of the file read, or the plain loading line until the reader
 * first says how far it is (a Google spreadsheet's never does: it comes in one answer).
 */
export function TabsLoading({ fraction }: { fraction: number | null }) {
  if (!fraction) return <Loading what="tabs" />;
  const percent = Math.floor(fraction * 100);
  return (
    <div class="state read-progress" role="status">
      <label>
        Reading the spreadsheet: {percent}%
        <progress max={100} value={percent} />
      </label>
    </div>
  );
}
