/** What the agent tests hand an agent and read back from the test server's requests. */
import type { Trajectory } from '../../electron/scoring/trajectory.ts';
import type { Observation } from '../../electron/agents/agent-types.ts';
import { fullSizeGeometry } from '../../electron/input/coordinates.ts';

/** Step `step` of episode 0 of a 520×640 window sent whole at scale 1 (the frame: a few JPEG-marked bytes). */
export function frameObservation(step = 0): Observation {
  return {
    step,
    episode: 0,
    frame: { data: Buffer.from([0xff, 0xd8, step]), mime: 'image/jpeg', width: 520, height: 640, scale: 1 },
    geometry: fullSizeGeometry({ x: 0, y: 0, width: 520, height: 640 }),
    tCapture: Date.now(),
  };
}

/** The memory agent's review call (its system prompt asks for the history summary), not its action call. */
export const isMemoryReview = (body: any) => String(body.messages[0].content).includes('### History_summary');

/** The text parts of a chat request's last message. */
export const lastUserText = (body: any): string =>
  body.messages
    .at(-1)
    .content.filter((p: any) => p.type === 'text')
    .map((p: any) => p.text)
    .join('\n');

/** A failed attempt of one frame, as the reflector is shown it. */
export const FAILED_RUN: Trajectory = {
  kind: 'run',
  source: 'run-1',
  frames: [{ at: 0, source: 'f0.jpg', dataUrl: 'data:image/jpeg;base64,/9g=' }],
  available: 1,
  notes: 'score 3',
  warnings: [],
};
