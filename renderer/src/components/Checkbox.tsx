/** A labelled checkbox: the one shape every yes/no setting in the forms takes. */
import type { ReactNode } from 'react';

export function Checkbox({
  checked,
  onChange,
  testId,
  title,
  className = 'inline',
  children,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  testId: string;
  /** Why the setting matters, on hover. */
  title?: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <label className={className} {...(title ? { title } : {})}>
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} data-testid={testId} />{' '}
      {children}
    </label>
  );
}
