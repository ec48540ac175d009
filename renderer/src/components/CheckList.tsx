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

/** A checkbox per game, labelled with its title; `checked` and `onChange` hold game ids. */
export function GameCheckList({
  games,
  checked,
  onChange,
  testIdPrefix,
}: {
  games: readonly { id: string; title: string }[];
  checked: string[];
  onChange: (ids: string[]) => void;
  testIdPrefix: string;
}) {
  return (
    <CheckList
      items={games.map((g) => g.id)}
      checked={checked}
      onToggle={(id, on) => onChange(toggle(checked, id, on))}
      label={(id) => games.find((g) => g.id === id)?.title}
      testId={(id) => `${testIdPrefix}${id}`}
    />
  );
}
