/** Who sits in each seat of a two-seat game, as the New run tab asks: a model (by name) or a baseline. */
import { seatColour } from './seats.ts';

export interface SeatForm {
  agent: 'vlm' | 'solver' | 'random';
  /** Empty: the model in Settings. */
  model: string;
}

/** A seat as the start-run request names it (`seats`): solver, random or vlm:<model>. */
export function seatSpecOf(s: SeatForm, settingsModel: string): string {
  return s.agent === 'vlm' ? `vlm:${s.model || settingsModel}` : s.agent;
}

export function SeatPicker({
  seat,
  name,
  value,
  onChange,
  modelConfigured,
  settingsModel,
}: {
  seat: number;
  name: string;
  value: SeatForm;
  onChange: (s: SeatForm) => void;
  modelConfigured: boolean;
  settingsModel: string;
}) {
  return (
    <label style={{ color: seatColour(seat) }}>
      {name} (player {seat + 1})
      <select
        value={value.agent}
        onChange={(e) => onChange({ ...value, agent: e.target.value as SeatForm['agent'] })}
        data-testid={`seat-agent-${seat}`}
      >
        <option value="vlm" disabled={!modelConfigured}>
          model{modelConfigured ? '' : ' (configure in Settings)'}
        </option>
        <option value="solver">solver baseline</option>
        <option value="random">random baseline</option>
      </select>
      {value.agent === 'vlm' && (
        <input
          value={value.model}
          onChange={(e) => onChange({ ...value, model: e.target.value.trim() })}
          placeholder={settingsModel || 'model'}
          aria-label={`${name}'s model`}
          data-testid={`seat-model-${seat}`}
        />
      )}
    </label>
  );
}
