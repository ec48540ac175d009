/** Runs the tests write by hand, without playing. */
import { RunStore } from '../../electron/store/run-store.ts';

/** A new run folder under `root`: the random agent on built-in 2048, nothing written yet but run.json. */
export function randomRun(root: string): RunStore {
  return RunStore.create(root, {
    kind: 'agent',
    game: '2048',
    target: { kind: 'builtin', label: '2048' },
    agent: 'random',
    model: null,
    action_space: 'gui',
    config: {},
  });
}
