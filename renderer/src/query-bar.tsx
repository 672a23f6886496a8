/**
 * A tab's query bar (docs/dashboard.md): `where`, `sort` and `fields` answered by the admin mirror of
 * `GET /v1/sheets/{sheetId}/rows`, or `group_by` and `metrics` by that of `/aggregate`, drawn as bars. A query
 * that cannot be read shows the server's error with a caret under its position. The URL and the curl line of the
 * same query on `/v1` are shown to copy, so what the dashboard shows a script can ask for.
 */
import { useState } from 'preact/hooks';
import { AggregateBars } from './aggregate-bars.tsx';
import { ApiError, api, enc } from './api.ts';
import { CopyField } from './copy-button.tsx';
import { quantity } from './quantity.ts';
import { Scrollable } from './scrollable.tsx';
import { ErrorNote, Loading } from './status.tsx';
import { TypedCell } from './typed-cell.tsx';
import type { QueryAnswer } from './types.ts';
import { useResource } from './use-resource.ts';

interface QueryDraft {
  where: string;
  sort: string;
  fields: string;
  group_by: string;
  metrics: string;
}

const EMPTY: QueryDraft = { where: '', sort: '', fields: '', group_by: '', metrics: '' };

/** The query string of a draft: a group-by is an aggregate (no fields), else a listing (no metrics). */
function queryString(q: QueryDraft): string {
  const grouped = q.group_by.trim() !== '' || q.metrics.trim() !== '';
  const names: (keyof QueryDraft)[] = grouped
    ? ['group_by', 'metrics', 'where', 'sort']
    : ['where', 'sort', 'fields'];
  return names
    .filter((n) => q[n].trim() !== '')
    .map((n) => `${n}=${enc(q[n])}`)
    .concat(['limit=50'])
    .join('&');
}

export function QueryBar({
  spreadsheetId,
  sheetName,
  sheetId,
  version,
  publicRead,
}: {
  spreadsheetId: string;
  sheetName: string;
  sheetId: string;
  /** Moves when the tab's rows changed: the query is run again. */
  version: number;
  publicRead: boolean;
}) {
  const [draft, setDraft] = useState<QueryDraft>(EMPTY);
  const [ran, setRan] = useState<QueryDraft | null>(null);
  const grouped = ran !== null && (ran.group_by.trim() !== '' || ran.metrics.trim() !== '');
  const route = grouped ? 'aggregate' : 'rows';
  const search = ran ? queryString(ran) : '';
  const answer = useResource(
    () =>
      ran
        ? api<QueryAnswer>(
            `/admin/connections/${enc(spreadsheetId)}/sheets/${enc(sheetName)}/${route}?${search}`,
          )
        : Promise.resolve(null),
    `${spreadsheetId}/${sheetName}/${route}?${search}/${version}`,
  );
  const field = (name: keyof QueryDraft, label: string, placeholder: string, wide = false) => (
    <label class={wide ? 'wide' : undefined}>
      {label}
      <input
        type="text"
        value={draft[name]}
        placeholder={placeholder}
        spellcheck={false}
        onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })}
      />
    </label>
  );
  const url = `${window.location.origin}/v1/sheets/${enc(sheetId)}/${route}?${search}`;
  return (
    <section class="query-bar" aria-label={`query ${sheetName}`}>
      <form
        class="form-row"
        onSubmit={(e) => {
          e.preventDefault();
          setRan({ ...draft });
        }}
      >
        {field('where', 'Where', "Total > 500 and Status in ('open', 'late')", true)}
        {field('sort', 'Sort', '-Total,Customer')}
        {field('fields', 'Fields', 'Customer,Total')}
        {field('group_by', 'Group by', 'Region')}
        {field('metrics', 'Metrics', 'count,sum(Total)')}
        <button type="submit">Run query</button>
        {ran ? (
          <button
            type="button"
            onClick={() => {
              setDraft(EMPTY);
              setRan(null);
            }}
          >
            Clear
          </button>
        ) : null}
      </form>
      {ran ? (
        <div class="endpoint">
          <CopyField value={url} label="query URL" />
          <CopyField
            value={publicRead ? `curl "${url}"` : `curl -H "Authorization: Bearer $KEY" "${url}"`}
            label="query curl command"
          />
        </div>
      ) : null}
      {answer.error ? <QueryError error={answer.error} draft={ran ?? EMPTY} /> : null}
      {ran && answer.loading && !answer.data ? <Loading what="rows" /> : null}
      {answer.data && !answer.error ? (
        grouped ? (
          <AggregateBars answer={answer.data} groupBy={ran!.group_by} />
        ) : (
          <QueryTable answer={answer.data} />
        )
      ) : null}
    </section>
  );
}

/** The server's error; for a parameter it points into, the text with a caret under the position. */
function QueryError({ error, draft }: { error: Error; draft: QueryDraft }) {
  const details = error instanceof ApiError ? error.details : {};
  const parameter = details.parameter as keyof QueryDraft | undefined;
  const position = details.position;
  const text = parameter && parameter in draft ? draft[parameter] : null;
  return (
    <>
      <ErrorNote error={error} />
      {text !== null && typeof position === 'number' ? (
        <pre class="caret" title={`${parameter}, the error's position marked`}>
          {text}
          {'\n'}
          {`${' '.repeat(position)}^`}
        </pre>
      ) : null}
    </>
  );
}

function QueryTable({ answer }: { answer: QueryAnswer }) {
  const header = answer.data[0] ? Object.keys(answer.data[0]) : [];
  return (
    <Scrollable class="table-wrap" label="Query result (scrolls sideways)">
      <table>
        <caption>
          {answer.data.length === 0
            ? 'No row matches.'
            : `${answer.data.length} of ${quantity(answer.meta.total, 'matching row')}`}
        </caption>
        <thead>
          <tr>
            {header.map((h) => (
              <th scope="col" key={h}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {answer.data.map((row, i) => (
            <tr key={i}>
              {header.map((h) => (
                <TypedCell key={h} value={row[h] ?? null} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </Scrollable>
  );
}
