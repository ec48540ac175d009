/** The memory agent's long-term stores (one a scope), each with a button to clear it. */
import { useCallback, useEffect, useState } from 'react';
import type { ApiClient, Results } from '../../../electron/api/contract.ts';

export function MemoryStores({ client }: { client: ApiClient }) {
  const [scopes, setScopes] = useState<Results['listMemory']['scopes'] | null>(null);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const load = useCallback(
    () =>
      client.request('listMemory').then(
        (r) => setScopes(r.scopes),
        (e: Error) => setNote({ ok: false, text: e.message }),
      ),
    [client],
  );
  useEffect(() => {
    void load();
  }, [load]);
  const clear = (scope: string) =>
    client.request('clearMemory', { scope }).then(
      (r) => {
        setNote({ ok: true, text: `cleared ${r.cleared} memories of ${r.scope}` });
        void load();
      },
      (e: Error) => setNote({ ok: false, text: e.message }),
    );
  return (
    <section className="memory-stores" aria-label="memory stores">
      <h3>Memory agent stores</h3>
      {!scopes ? (
        <div className="muted">Loading…</div>
      ) : !scopes.length ? (
        <div className="muted">
          No memories yet: a memory agent run keeps them here, one store a game or participant.
        </div>
      ) : (
        <table className="episodes" data-testid="memory-stores">
          <tbody>
            {scopes.map((s) => (
              <tr key={s.scope}>
                <td>
                  <code>{s.scope}</code>
                </td>
                <td>{s.memories < 0 ? 'damaged (moved aside when next used)' : `${s.memories} memories`}</td>
                <td>
                  <button type="button" onClick={() => clear(s.scope)} data-testid={`memory-clear-${s.scope}`}>
                    Clear
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {note && (
        <span className={note.ok ? 'ok' : 'bad'} role="status" data-testid="memory-note">
          {note.text}
        </span>
      )}
    </section>
  );
}
