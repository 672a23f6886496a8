/** One filter of a log: a labelled choice whose first option, "any", filters nothing (the empty value). */
export interface FilterOption {
  value: string;
  label: string;
}

export function FilterSelect(props: {
  label: string;
  any: string;
  value: string;
  options: readonly (string | FilterOption)[];
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">{props.any}</option>
        {props.options.map((o) => {
          const { value, label } = typeof o === 'string' ? { value: o, label: o } : o;
          return (
            <option key={value} value={value}>
              {label}
            </option>
          );
        })}
      </select>
    </label>
  );
}
