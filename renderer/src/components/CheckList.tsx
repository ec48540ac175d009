/** A row of labelled checkboxes, one per item (games, agents, settings in the ING-VP and Sweeps tabs). */
import type { ReactNode } from 'react';

/** `xs` with `x` added at the end (on) or removed (off). */
export const toggle = <T,>(xs: T[], x: T, on: boolean) => (on ? [...xs, x] : xs.filter((y) => y !== x));

export function CheckList<T extends string>({
  items,
  checked,
  onToggle,
  label,
  testId,
  disabled,
}: {
  items: readonly T[];
  checked: readonly T[];
  onToggle: (item: T, on: boolean) => void;
  label: (item: T) => ReactNode;
  testId: (item: T) => string;
  disabled?: (item: T) => boolean;
}) {
  return (
    <>
      {items.map((item) => (
        <label key={item} className="inline">
          <input
            type="checkbox"
            checked={checked.includes(item)}
            {...(disabled ? { disabled: disabled(item) } : {})}
            onChange={(e) => onToggle(item, e.target.checked)}
            data-testid={testId(item)}
          />{' '}
          {label(item)}
        </label>
      ))}
    </>
  );
}
