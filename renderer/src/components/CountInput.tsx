/** Number fields for counts (episodes, steps, rounds): whole numbers of at least 1. */

interface CountProps<T> {
  label: string;
  value: T;
  onChange: (n: T) => void;
  placeholder?: string;
  testId?: string;
}

function CountField<T extends number | ''>({
  label,
  value,
  onChange,
  placeholder,
  testId,
  read,
}: CountProps<T> & { read: (text: string) => T }) {
  return (
    <label>
      {label}{' '}
      <input
        type="number"
        min={1}
        placeholder={placeholder}
        value={value}
        onChange={(e) => onChange(read(e.target.value))}
        data-testid={testId}
      />
    </label>
  );
}

/** A count that is always set: a blank or bad entry reads as 1. */
export function CountInput(props: Omit<CountProps<number>, 'placeholder'>) {
  return <CountField {...props} read={(text) => Math.max(1, Number(text) || 1)} />;
}

/** A count that may be left blank ('': the default, which `placeholder` can name). */
export function OptionalCountInput(props: CountProps<number | ''>) {
  return <CountField {...props} read={(text) => (text ? Math.max(1, Number(text)) : '')} />;
}
