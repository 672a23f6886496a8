/**
 * A webhook's condition in the dashboard's forms (docs/api.md, "Conditional webhooks"): a `where` expression and
 * the columns whose change an update must touch, chosen from the tab's header.
 */

export interface ConditionDraft {
  where: string;
  columns: string[];
}

export const NO_CONDITION: ConditionDraft = { where: '', columns: [] };

/** What a create or PATCH body carries: a blank where and no columns are none. */
export function conditionBody(draft: ConditionDraft): { where: string | null; columns: string[] | null } {
  return {
    where: draft.where.trim() === '' ? null : draft.where,
    columns: draft.columns.length === 0 ? null : draft.columns,
  };
}

/** A webhook's condition in words, for its card; null without one. */
export function conditionSummary(w: { where: string | null; columns: string[] | null }): string | null {
  const parts: string[] = [];
  if (w.where) parts.push(`rows where ${w.where}`);
  if (w.columns) parts.push(`updates of ${w.columns.join(', ')}`);
  return parts.length === 0 ? null : `Only ${parts.join('; ')}`;
}

export function ConditionFields({
  value,
  header,
  onChange,
}: {
  value: ConditionDraft;
  /** The tab's columns; null while unknown. */
  header: string[] | null;
  onChange: (v: ConditionDraft) => void;
}) {
  const columns = [...new Set([...(header ?? []), ...value.columns])];
  return (
    <>
      <label>
        Only rows where (optional)
        <input
          type="text"
          value={value.where}
          placeholder="Status = 'paid' and Total > 500"
          onInput={(e) => onChange({ ...value, where: e.currentTarget.value })}
        />
      </label>
      {columns.length > 0 ? (
        <fieldset>
          <legend>Updates only when these columns change (none: any)</legend>
          {columns.map((c) => (
            <label class="inline" key={c}>
              <input
                type="checkbox"
                checked={value.columns.includes(c)}
                onChange={(ev) =>
                  onChange({
                    ...value,
                    columns: ev.currentTarget.checked
                      ? [...value.columns, c]
                      : value.columns.filter((x) => x !== c),
                  })
                }
              />
              {c}
            </label>
          ))}
        </fieldset>
      ) : null}
    </>
  );
}
