/** A step's actions with what each did (a refused one marked, with why), and a list of errors or warnings. */

export function ActionList({
  actions,
  outcomes,
  testId,
}: {
  actions: readonly string[] | undefined;
  outcomes: readonly unknown[] | undefined;
  testId: string;
}) {
  return (
    <ol className="actions" data-testid={testId}>
      {actions?.map((a, i) => {
        const o = outcomes?.[i] as { ok?: boolean; error?: string } | undefined;
        return (
          <li key={i} className={o && !o.ok ? 'bad' : ''}>
            <code>{a}</code> {o && !o.ok ? <em>— {o.error}</em> : null}
          </li>
        );
      })}
    </ol>
  );
}

/** Nothing when there is nothing to say; else an alert, one line each. */
export function ErrorList({ items, testId }: { items: readonly string[] | undefined; testId?: string }) {
  if (!items?.length) return null;
  return (
    <div className="errors" role="alert" data-testid={testId}>
      {items.map((e, i) => (
        <div key={i}>{e}</div>
      ))}
    </div>
  );
}
