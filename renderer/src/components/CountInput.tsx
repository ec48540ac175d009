/**
 * Number fields: counts (episodes, steps, rounds, workers) are whole numbers of at least 1;
 * amounts (a pace in ms) have their own floor. A value typed past `max` reads as `max`.
 */

interface NumberProps<T> {
  label: string;
  value: T;
  onChange: (n: T) => void;
  max?: number;
  placeholder?: string;
  testId?: string;
}

function NumberField<T extends number | ''>({
  label,
  value,
  onChange,
  min,
  max,
  step,
  placeholder,
  testId,
  read,
}: NumberProps<T> & { min: number; step?: number; read: (text: string) => T }) {
  return (
    <label>
      {label}{' '}
      <input
        type="number"
        min={min}
        max={max}
        step={step}
        placeholder={placeholder}
        value={value}
        onChange={(e) => onChange(read(e.target.value))}
        data-testid={testId}
      />
    </label>
  );
}

const clamp = (n: number, min: number, max: number | undefined) =>
  Math.max(min, max === undefined ? n : Math.min(max, n));

/** A count that is always set: a blank or bad entry reads as 1. */
export function CountInput(props: Omit<NumberProps<number>, 'placeholder'>) {
  return <NumberField {...props} min={1} read={(text) => clamp(Number(text) || 1, 1, props.max)} />;
}

/** A count that may be left blank ('': the default, which `placeholder` can name). */
export function OptionalCountInput(props: NumberProps<number | ''>) {
  return <NumberField {...props} min={1} read={(text) => (text ? clamp(Number(text), 1, props.max) : '')} />;
}

/** An amount of at least `min` (a blank or bad entry reads as `min`). */
export function AmountInput(props: Omit<NumberProps<number>, 'placeholder'> & { min: number; step?: number }) {
  return <NumberField {...props} read={(text) => clamp(Number(text) || props.min, props.min, props.max)} />;
}

/** An amount above 0 that may be left blank ('': none, which `placeholder` can name), e.g. a cost cap in USD. */
export function OptionalAmountInput(props: NumberProps<number | ''> & { step?: number }) {
  return (
    <NumberField
      {...props}
      min={0}
      read={(text) => (text && Number(text) > 0 ? clamp(Number(text), 0, props.max) : '')}
    />
  );
}
