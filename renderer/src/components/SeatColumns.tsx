/**
 * A two-seat run's seats side by side, each headed by its name and agent in its colour: the
 * answer streaming on its turn (else its latest turn's reasoning), its actions and errors, its
 * score, and who won the last episode.
 */
import type { CoreEvent, SeatWire } from '../../../electron/api/contract.ts';
import type { LiveState } from '../useCore.ts';
import { seatColour } from './seats.ts';
import { ActionList, ErrorList } from './StepLists.tsx';

type EpisodeEnd = Extract<CoreEvent, { type: 'episode' }>;

/** How an episode of a two-seat game ended, in words: who won, or a draw (co-op: the team score). */
export function episodeResult(e: EpisodeEnd, seats: readonly SeatWire[]): string {
  const scores = e.seat_scores?.map((v, i) => `${seats[i]?.name ?? i + 1} ${v}`).join(' · ') ?? '';
  const who =
    e.winner === undefined
      ? `team score ${e.score ?? 'n/a'}`
      : e.winner === null
        ? 'draw'
        : `${seats[e.winner]?.name ?? `player ${e.winner + 1}`} won`;
  return scores ? `${who} (${scores})` : who;
}

export function SeatColumns({
  seats,
  scores,
  live,
}: {
  seats: readonly SeatWire[];
  scores: readonly number[] | undefined;
  live: Pick<LiveState, 'seatStreams' | 'seatTurns' | 'episodes'>;
}) {
  const last = live.episodes.at(-1);
  return (
    <>
      {last && (
        <div className="seat-result" data-testid="seat-result">
          episode {last.episode + 1}: {episodeResult(last, seats)}
        </div>
      )}
      <div className="seat-columns">
        {seats.map((s) => {
          const colour = seatColour(s.seat);
          const stream = live.seatStreams[s.seat];
          const turn = live.seatTurns[s.seat];
          const text = stream?.answer || turn?.reasoning;
          return (
            <section
              key={s.seat}
              className="seat-column"
              style={{ borderTopColor: colour }}
              aria-label={`seat ${s.name}`}
              data-testid={`seat-${s.seat}`}
            >
              <h3 style={{ color: colour }} data-testid={`seat-head-${s.seat}`}>
                {s.name} · {s.agent}{' '}
                <b className="seat-score" data-testid={`seat-score-${s.seat}`}>
                  {scores?.[s.seat] ?? '–'}
                </b>
                {stream?.answer ? <span className="pulse">streaming</span> : null}
              </h3>
              {stream?.thinking && <pre className="thinking">{stream.thinking}</pre>}
              <pre className="reasoning" data-testid={`seat-reasoning-${s.seat}`} aria-live="polite">
                {text ||
                  (s.model
                    ? `${s.name}'s model answers here on its turn.`
                    : `The ${s.agent} baseline does not explain itself.`)}
              </pre>
              <ActionList actions={turn?.actionsText} outcomes={turn?.outcomes} testId={`seat-actions-${s.seat}`} />
              <ErrorList items={turn?.errors} />
            </section>
          );
        })}
      </div>
    </>
  );
}
