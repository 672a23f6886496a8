/**
 * Team mode's coordination: who owns each spreadsheet (a lease row with an expiry on the database's clock), and
 * the per-key limits counted for the whole team (a rolling window and the day's counts, taken by one function
 * call per request under the subject's row lock). Needs no table of the other migrations.
 */
import type { PgMigration } from './pg-migration.ts';

export const TEAM_MIGRATION: PgMigration = {
  version: 3,
  name: 'team',
  sql: `
CREATE TABLE spreadsheet_leases (
  spreadsheet_id TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX spreadsheet_leases_holder ON spreadsheet_leases (holder);

-- The accepted request times (epoch ms) of a subject's rolling window, oldest first, at most per_second of them.
CREATE TABLE limit_windows (
  subject TEXT PRIMARY KEY,
  per_second INTEGER NOT NULL,
  times BIGINT[] NOT NULL DEFAULT '{}'
);

-- A subject's counts per UTC day: the daily quota reads requests; refused ones are counted apart.
CREATE TABLE limit_days (
  subject TEXT NOT NULL,
  day DATE NOT NULL,
  requests BIGINT NOT NULL DEFAULT 0,
  refused_per_second BIGINT NOT NULL DEFAULT 0,
  refused_daily BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (subject, day)
);

-- One request of a subject, by the rules of limits/rate-limiter.ts and rolling-window.ts: the daily quota first,
-- then the window; a refused request consumes neither. Runs under the subject's window row lock, so requests of
-- one subject from every instance take their places one after another.
CREATE FUNCTION sheetport_take_limit(
  p_subject TEXT, p_per_second INTEGER, p_daily BIGINT, p_now_ms BIGINT, p_window_ms BIGINT
) RETURNS TABLE (refused_by TEXT, used INTEGER, reset_at_ms BIGINT, daily_used BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
  v_day DATE := DATE '1970-01-01' + floor(p_now_ms / 86400000.0)::INTEGER;
  v_times BIGINT[];
  v_per_second INTEGER;
  v_first INTEGER := 1;
  v_daily_used BIGINT;
  v_refused TEXT := NULL;
BEGIN
  LOOP
    INSERT INTO limit_windows (subject, per_second) VALUES (p_subject, p_per_second)
      ON CONFLICT (subject) DO NOTHING;
    SELECT w.per_second, w.times INTO v_per_second, v_times
      FROM limit_windows w WHERE w.subject = p_subject FOR UPDATE;
    EXIT WHEN FOUND; -- else an idle window was pruned in between: make it again
  END LOOP;
  -- A changed plan takes effect at once with a fresh window.
  IF v_per_second <> p_per_second THEN v_times := '{}'; END IF;
  -- Times that left the window, from the oldest.
  WHILE v_first <= coalesce(array_length(v_times, 1), 0) AND v_times[v_first] <= p_now_ms - p_window_ms LOOP
    v_first := v_first + 1;
  END LOOP;
  v_times := coalesce(v_times[v_first:], '{}');

  SELECT d.requests INTO v_daily_used FROM limit_days d WHERE d.subject = p_subject AND d.day = v_day;
  IF NOT FOUND THEN
    v_daily_used := 0;
    -- A new day for this subject: days older than the usage report's month go.
    DELETE FROM limit_days d WHERE d.subject = p_subject AND d.day < v_day - 31;
  END IF;

  IF v_daily_used >= p_daily THEN v_refused := 'daily';
  ELSIF p_per_second <= 0 OR coalesce(array_length(v_times, 1), 0) >= p_per_second THEN v_refused := 'per_second';
  ELSE v_times := v_times || p_now_ms;
  END IF;

  UPDATE limit_windows SET per_second = p_per_second, times = v_times WHERE subject = p_subject;
  INSERT INTO limit_days AS d (subject, day, requests, refused_per_second, refused_daily)
    VALUES (p_subject, v_day,
            CASE WHEN v_refused IS NULL THEN 1 ELSE 0 END,
            CASE WHEN v_refused = 'per_second' THEN 1 ELSE 0 END,
            CASE WHEN v_refused = 'daily' THEN 1 ELSE 0 END)
    ON CONFLICT (subject, day) DO UPDATE SET
      requests = d.requests + EXCLUDED.requests,
      refused_per_second = d.refused_per_second + EXCLUDED.refused_per_second,
      refused_daily = d.refused_daily + EXCLUDED.refused_daily;

  refused_by := v_refused;
  used := coalesce(array_length(v_times, 1), 0);
  reset_at_ms := CASE WHEN used = 0 THEN p_now_ms ELSE v_times[1] + p_window_ms END;
  daily_used := v_daily_used + CASE WHEN v_refused IS NULL THEN 1 ELSE 0 END;
  RETURN NEXT;
END;
$$;

-- What limits no longer need: windows idle for a minute (an empty window is made again on the next request) and
-- days past the usage report's month.
CREATE FUNCTION sheetport_prune_limits(p_now_ms BIGINT) RETURNS VOID LANGUAGE sql AS $$
  DELETE FROM limit_windows
    WHERE coalesce(times[array_upper(times, 1)], 0) <= p_now_ms - 60000;
  DELETE FROM limit_days
    WHERE day < DATE '1970-01-01' + floor(p_now_ms / 86400000.0)::INTEGER - 31;
$$;
`,
};
