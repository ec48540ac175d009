/** The memory agent live: how it retrieves, the running summary, the memories in this step's prompt, what it saved. */
import type { LiveRun, MemoryStepRecord } from '../../../electron/api/contract.ts';

/** The store and how it retrieves: a live run's, or a replayed run's from its run.json. */
export type MemoryInfo = NonNullable<LiveRun['memory']>;

export function MemoryPanel({
  info,
  memory,
}: {
  info: MemoryInfo;
  memory: (MemoryStepRecord & { step: number }) | null;
}) {
  return (
    <section className="memory" aria-label="memory" data-testid="memory-panel">
      <h3>Memory</h3>
      <div className="muted" data-testid="memory-retrieval">
        store <code>{info.scope}</code> · retrieval{' '}
        <b>{info.retrieval === 'embedding' ? `embeddings (${info.embeddingModel})` : 'lexical (BM25 over words)'}</b>
        {info.retrieval === 'lexical' && info.note ? ` — ${info.note}` : ''}
      </div>
      {memory ? (
        <>
          <div className="muted">step {memory.step + 1}: history summary</div>
          <pre className="json memory-summary" data-testid="memory-summary">
            {memory.summary || '(empty)'}
          </pre>
          <div className="muted">retrieved from long-term memory</div>
          <ol className="actions" data-testid="memory-retrieved">
            {memory.retrieved.length ? (
              memory.retrieved.map((m) => (
                <li key={m.id}>
                  {m.text} <em>({m.similarity.toFixed(2)})</em>
                </li>
              ))
            ) : (
              <li className="muted">nothing relevant</li>
            )}
          </ol>
          {memory.saved && (
            <div data-testid="memory-saved">
              saved: <q>{memory.saved.text}</q>
            </div>
          )}
          {memory.skipped && (
            <div className="muted" data-testid="memory-skipped">
              not saved, {memory.skipped.similarity.toFixed(2)} like a stored memory: <q>{memory.skipped.text}</q>
            </div>
          )}
          {memory.errors?.map((e, i) => (
            <div key={i} className="errors" role="alert">
              {e}
            </div>
          ))}
        </>
      ) : (
        <div className="muted">The summary and memories appear here from the first step.</div>
      )}
    </section>
  );
}
