/** Number fields for counts (episodes, steps, rounds): whole numbers of at least 1. */

/** A count that is always set: a blank or bad entry reads as 1. */
export function CountInput({
  label,
  value,
  onChange,
  testId,
}: {
  label: string;
  value: number;
  onChange: (n: number) => void;
  testId?: string;
}) {
  return (
    <label>
      {label}{' '}
      <input
        type="number"
        min={1}
        value={value}
        onChange={(e) => onChange(Math.max(1, Number(e.target.value) || 1))}
        data-testid={testId}
      />
    </label>
  );
}

/** A count that may be left blank ('': the default, which `placeholder` can name). */
export function OptionalCountInput({
  label,
  value,
  onChange,
  placeholder,
  testId,
}: {
  label: string;
  value: number | '';
  onChange: (n: number | '') => void;
  placeholder?: string;
  testId?: string;
}) {
  return (
    <label>
      {label}{' '}
      <input
        type="number"
        min={1}
        placeholder={placeholder}
        value={value}
        onChange={(e) => onChange(e.target.value ? Math.max(1, Number(e.target.value)) : '')}
        data-testid={testId}
      />
    </label>
  );
}
