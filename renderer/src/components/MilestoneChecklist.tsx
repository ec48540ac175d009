/**
 * A milestone checklist: ticked as the judge confirms each milestone (live, or as run.json kept
 * it in the replay), its evidence frame shown on hover. In a finished run a person can overrule
 * a verdict; the label is kept apart from the judge's (milestone-labels.json).
 */
import { useEffect, useState } from 'react';
import type { ApiClient, MilestoneItemWire, MilestoneLabelWire } from '../../../electron/api/contract.ts';

export function MilestoneChecklist({
  client,
  runId,
  episode,
  items,
  score,
  calls,
  budget,
  labels,
  onLabel,
  onError,
}: {
  client: ApiClient;
  runId: string;
  episode: number;
  items: MilestoneItemWire[];
  score: number;
  calls?: number;
  budget?: number | null;
  /** Given in a finished run: the person's labels, and how to set one. */
  labels?: MilestoneLabelWire[];
  onLabel?: (milestone: string, reached: boolean | null) => void;
  onError: (e: string) => void;
}) {
  const [hover, setHover] = useState<string | null>(null);
  const [evidence, setEvidence] = useState<string | null>(null);
  useEffect(() => {
    setEvidence(null);
    if (!hover) return;
    let live = true;
    client.request('getFrame', { id: runId, frame: hover }).then(
      (r) => live && setEvidence(r.dataUrl),
      (e: Error) => onError(e.message),
    );
    return () => {
      live = false;
    };
  }, [hover, runId, client, onError]);
  const reached = items.filter((i) => i.reached).length;
  return (
    <section aria-label="milestones" className="milestones" data-testid="milestones">
      <h3>
        Milestones — episode {episode + 1}: {reached}/{items.length} ({score.toFixed(1)})
        {calls !== undefined && (
          <small>
            {' '}
            · {calls}
            {budget != null ? `/${budget}` : ''} judge calls
          </small>
        )}
      </h3>
      <ul>
        {items.map((m) => {
          const label = labels?.find((l) => l.episode === episode && l.milestone === m.name);
          return (
            <li
              key={m.name}
              data-reached={m.reached}
              onMouseEnter={() => setHover(m.frame ?? null)}
              onMouseLeave={() => setHover(null)}
              title={m.reached ? `step ${m.step}: ${m.reason ?? ''}` : (m.description ?? '')}
            >
              <span aria-hidden>{m.reached ? '☑' : '☐'}</span> {m.name}
              {m.reached && <small> — step {m.step}</small>}
              {label && (
                <strong data-testid="human-label"> · person: {label.reached ? 'reached' : 'not reached'}</strong>
              )}
              {onLabel && (
                <span className="overrule">
                  {' '}
                  <button type="button" onClick={() => onLabel(m.name, !m.reached)}>
                    overrule
                  </button>
                  {label && (
                    <button type="button" onClick={() => onLabel(m.name, null)}>
                      clear
                    </button>
                  )}
                </span>
              )}
            </li>
          );
        })}
      </ul>
      {evidence && <img className="evidence" src={evidence} alt="evidence frame" data-testid="milestone-evidence" />}
    </section>
  );
}
