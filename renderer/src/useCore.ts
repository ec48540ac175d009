/** Live state of the core, folded from the contract's event stream. */
import { useEffect, useReducer } from 'react';
import {
  liveScore,
  type ApiClient,
  type CoreEvent,
  type CoreState,
  type IdcRoundSummary,
  type MemoryStepRecord,
  type RecordingResult,
  type SeatStepWire,
  type StepEventData,
  type SuiteLevelRef,
  type SuiteLevelResult,
  type SuiteProgressWire,
  type SuiteTableWire,
  type SweepJobWire,
  type SweepProgressWire,
} from '../../electron/api/contract.ts';

export interface LiveFrame {
  runId: string;
  episode: number;
  step: number;
  dataUrl: string;
  width: number;
  height: number;
}

/** An ING-VP suite as its events tell it: kept after it ended, until the next one starts. */
export interface SuiteLive {
  name: string;
  progress: SuiteProgressWire | null;
  current: SuiteLevelRef | null;
  /** The level in play's latest answer, with its frame or text state. */
  step: Extract<CoreEvent, { type: 'suite-step' }> | null;
  table: SuiteTableWire | null;
  /** Levels finished by this start, latest last. */
  results: SuiteLevelResult[];
  done: Extract<CoreEvent, { type: 'suite-done' }> | null;
}

/** A sweep as its events tell it: kept after it ended, until the next one starts. */
export interface SweepLive {
  name: string;
  workers: number | null;
  progress: SweepProgressWire | null;
  /** Every job of the matrix, in the sweep's order, with its latest status. */
  jobs: SweepJobWire[];
  done: Extract<CoreEvent, { type: 'sweep-done' }> | null;
}

/** What a tab that starts core work and follows it live is given (the ING-VP and IDC tabs). */
export interface CoreTabProps {
  client: ApiClient;
  core: CoreState | null;
  live: LiveState;
  onError: (e: string) => void;
}

export interface LiveState {
  core: CoreState | null;
  frame: LiveFrame | null;
  /** The step whose actions belong to the frame shown (same episode and step). */
  step: StepEventData | null;
  /** The last finished step, kept while the next one is under way (timings stay visible). */
  lastStep: StepEventData | null;
  answer: string;
  thinking: string;
  /** A two-seat run: each seat's answer as it streams in this step, by seat. */
  seatStreams: Record<number, { answer: string; thinking: string }>;
  /** A two-seat run: each seat's latest turn and its episode, kept while the other seat plays. */
  seatTurns: Record<number, SeatStepWire & { episode: number }>;
  episodes: Extract<CoreEvent, { type: 'episode' }>[];
  released: string[];
  warnings: string[];
  recorded: RecordingResult[];
  lessons: Extract<CoreEvent, { type: 'lessons' }> | null;
  /** The memory agent's latest summary and memories, with the step they belong to. */
  memory: (MemoryStepRecord & { episode: number; step: number }) | null;
  /** The milestone checklist of the episode being judged (a milestone-scored profile). */
  milestones: Extract<CoreEvent, { type: 'milestones' }> | null;
  idc: { rounds: IdcRoundSummary[]; curve: number[]; done: Extract<CoreEvent, { type: 'idc-done' }> | null } | null;
  suite: SuiteLive | null;
  sweep: SweepLive | null;
}

const initial: LiveState = {
  core: null,
  frame: null,
  step: null,
  lastStep: null,
  answer: '',
  thinking: '',
  seatStreams: {},
  seatTurns: {},
  episodes: [],
  released: [],
  warnings: [],
  recorded: [],
  lessons: null,
  memory: null,
  milestones: null,
  idc: null,
  suite: null,
  sweep: null,
};

/** The sweep an event belongs to: the one going, or a fresh one (a new start, even of the same sweep). */
function sweepOf(s: LiveState, name: string): SweepLive {
  return s.sweep && !s.sweep.done && s.sweep.name === name
    ? s.sweep
    : { name, workers: null, progress: null, jobs: [], done: null };
}

/** The suite an event belongs to: the one going, or a fresh one (a new start, even of the same folder). */
function suiteOf(s: LiveState, name: string): SuiteLive {
  return s.suite && !s.suite.done && s.suite.name === name
    ? s.suite
    : { name, progress: null, current: null, step: null, table: null, results: [], done: null };
}

type Action = { type: 'event'; e: CoreEvent } | { type: 'state'; state: CoreState };

function reduce(s: LiveState, a: Action): LiveState {
  if (a.type === 'state') return { ...s, core: a.state };
  const e = a.e;
  switch (e.type) {
    case 'state': {
      const newRun = e.state.run && e.state.run.id !== s.core?.run?.id;
      const next = newRun ? { ...initial, core: e.state } : { ...s, core: e.state };
      const sw = e.state.sweep;
      if (sw) {
        // A state snapshot is as new as the events before it: its rows and progress are current.
        return {
          ...next,
          sweep: { ...sweepOf(s, sw.name), workers: sw.workers, progress: sw.progress, jobs: sw.jobs },
        };
      }
      const st = e.state.suite;
      if (!st) return next;
      const suite = suiteOf(s, st.name);
      return {
        ...next,
        suite: {
          ...suite,
          progress: suite.progress ?? st.progress,
          current: suite.current ?? st.current,
          table: suite.table ?? st.table,
        },
      };
    }
    case 'frame':
      return {
        ...s,
        core: withRun(s.core, (r) => ({ ...r, episode: e.episode, step: e.step })),
        frame: e,
        step: null,
        answer: '',
        thinking: '',
        seatStreams: {},
      };
    case 'token': {
      if (e.seat !== undefined) {
        const was = s.seatStreams[e.seat] ?? { answer: '', thinking: '' };
        const now = { ...was, [e.channel]: was[e.channel] + e.text };
        return { ...s, seatStreams: { ...s.seatStreams, [e.seat]: now } };
      }
      return e.channel === 'answer' ? { ...s, answer: s.answer + e.text } : { ...s, thinking: s.thinking + e.text };
    }
    case 'step': {
      const d = e.data;
      const core = withRun(s.core, (r) => ({
        ...r,
        ...liveScore(r, d),
        tokens: { input: r.tokens.input + (d.tokens?.input ?? 0), output: r.tokens.output + (d.tokens?.output ?? 0) },
        costUsd: typeof d.cost_usd === 'number' ? (r.costUsd ?? 0) + d.cost_usd : r.costUsd,
        ...(d.seat_scores ? { seatScores: d.seat_scores } : {}),
        ...(d.timing ? { timing: d.timing } : {}),
      }));
      const seatTurns = d.seats
        ? { ...s.seatTurns, ...Object.fromEntries(d.seats.map((t) => [t.seat, { ...t, episode: d.episode }])) }
        : s.seatTurns;
      return { ...s, core, step: d, lastStep: d, seatTurns };
    }
    case 'episode':
      return { ...s, core: withRun(s.core, (r) => ({ ...r, ...liveScore(r, e) })), episodes: [...s.episodes, e] };
    case 'released':
      return { ...s, released: e.inputs };
    case 'takeover':
      return { ...s, core: withRun(s.core, (r) => ({ ...r, takeover: e.takeover })) };
    case 'world':
      return { ...s, core: withRun(s.core, (r) => ({ ...r, latency: e.latency })) };
    case 'warning':
      return { ...s, warnings: [...s.warnings.slice(-4), e.message] };
    case 'memory':
      return {
        ...s,
        memory: { ...e.memory, episode: e.episode, step: e.step },
        core: withRun(s.core, (r) => (r.memory ? { ...r, memory: { ...r.memory, retrieval: e.memory.retrieval } } : r)),
      };
    case 'recording':
      return { ...s, core: s.core ? { ...s.core, recording: e.state } : s.core };
    case 'recorded':
      return { ...s, recorded: [...s.recorded, e.result] };
    case 'lessons':
      return {
        ...s,
        lessons: e,
        core: withRun(s.core, (r) =>
          r.reflection && e.text ? { ...r, reflection: { ...r.reflection, lessons: e.text } } : r,
        ),
      };
    case 'milestones':
      return { ...s, milestones: e };
    case 'idc':
      return {
        ...s,
        idc: {
          rounds: [...(s.idc?.rounds ?? []).filter((x) => x.round !== e.round.round), e.round],
          curve: e.curve,
          done: null,
        },
      };
    case 'idc-done':
      return {
        ...s,
        idc: { rounds: s.idc?.rounds ?? [], curve: e.curve.length ? e.curve : (s.idc?.curve ?? []), done: e },
      };
    case 'suite-progress':
      return { ...s, suite: { ...suiteOf(s, e.suite), progress: e.progress } };
    case 'suite-level':
      return { ...s, suite: { ...suiteOf(s, e.suite), current: e.current, step: null } };
    case 'suite-step':
      return { ...s, suite: { ...suiteOf(s, e.suite), current: e.current, step: e } };
    case 'suite-table': {
      const suite = suiteOf(s, e.suite);
      return { ...s, suite: { ...suite, table: e.table, results: [...suite.results, e.last] } };
    }
    case 'suite-done':
      return { ...s, suite: { ...suiteOf(s, e.suite), table: e.table, done: e } };
    case 'sweep-progress':
      return { ...s, sweep: { ...sweepOf(s, e.sweep), progress: e.progress } };
    case 'sweep-job': {
      const sweep = sweepOf(s, e.sweep);
      const known = sweep.jobs.some((j) => j.id === e.job.id);
      const jobs = known ? sweep.jobs.map((j) => (j.id === e.job.id ? e.job : j)) : [...sweep.jobs, e.job];
      return { ...s, sweep: { ...sweep, jobs } };
    }
    case 'sweep-done':
      return { ...s, sweep: { ...sweepOf(s, e.sweep), done: e } };
  }
}

/** Live counters move with the event stream; state events (status changes) resynchronise them. */
function withRun(
  core: CoreState | null,
  f: (r: NonNullable<CoreState['run']>) => NonNullable<CoreState['run']>,
): CoreState | null {
  return core?.run ? { ...core, run: f(core.run) } : core;
}

export function useCore(client: ApiClient): LiveState {
  const [state, dispatch] = useReducer(reduce, initial);
  useEffect(() => {
    const off = client.onEvent((e) => dispatch({ type: 'event', e }));
    client.request('state').then(
      (st) => dispatch({ type: 'state', state: st }),
      () => {},
    );
    return off;
  }, [client]);
  return state;
}
