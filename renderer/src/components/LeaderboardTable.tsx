/**
 * The leaderboard's rows as the Runs tab shows them (store/leaderboard.ts): a title × player ×
 * VR × action space × protocol cell a row, its trials (with the invalid ones left out and the
 * unreadable ones scored 0), mean ± std and quality rates, and a bar against the title's best.
 */
import type { Results } from '../../../electron/api/contract.ts';
import { rateText } from '../../../electron/api/contract.ts';

type Row = Results['leaderboard']['rows'][number];

export function LeaderboardTable({ rows, testId }: { rows: Row[]; testId: string }) {
  return (
    <table className="run-table leaderboard" data-testid={testId}>
      <thead>
        <tr>
          <th>Title</th>
          <th>Player</th>
          <th>Model</th>
          <th>VR</th>
          <th>Mode</th>
          <th title="the latency mode with its interval or buffer, and how the world is frozen">Protocol</th>
          <th>Runs</th>
          <th>Episodes</th>
          <th>Mean ± std</th>
          <th>Best</th>
          <th title="steps that changed nothing in the game window, over the runs' steps">No effect</th>
          <th title="steps with invalid actions (unparseable or refused), over the runs' steps">Invalid actions</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => {
          const top = Math.max(...rows.filter((b) => b.game === r.game).map((b) => b.mean), 1e-9);
          return (
            <tr key={[r.game, r.player, r.model, r.assisted, r.vr, r.lessons, r.actionSpace, r.protocol].join('|')}>
              <td title={r.game}>
                {r.title}
                {r.kind === 'unprofiled' ? ' (unprofiled window)' : ''}
                {r.profile_versions > 1 ? ` [${r.profile_versions} profile versions]` : ''}
              </td>
              <td>{r.assisted ? `${r.player} (assisted)` : r.player}</td>
              <td>{r.model ?? '–'}</td>
              <td>{r.vr === 'Yes' && r.lessons ? `Yes (${r.lessons})` : r.vr}</td>
              <td>{r.actionSpace}</td>
              <td>{r.protocol}</td>
              <td title={r.runs_std === null ? undefined : 'the spread (std) of the runs’ own means'}>
                {r.runs_std === null ? r.runs : `${r.runs} (± ${r.runs_std})`}
              </td>
              <td>
                {r.episodes}
                {r.unreadable > 0 && (
                  <span className="bad" title="trials whose score could not be read: counted as 0 in the mean">
                    {' '}
                    ({r.unreadable} unreadable, scored 0)
                  </span>
                )}
                {r.invalid_episodes > 0 && <span className="bad"> ({r.invalid_episodes} invalid)</span>}
              </td>
              <td>
                {r.mean} ± {r.std}
              </td>
              <td>{r.best}</td>
              <td data-key="no_effect">{rateText(r.no_effect_rate)}</td>
              <td data-key="invalid_rate">{rateText(r.invalid_rate)}</td>
              <td style={{ width: 160 }}>
                <div className="score-bar" style={{ width: `${(r.mean / top) * 100}%` }} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
