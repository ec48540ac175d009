/**
 * A reset is Gamepilot's input: it is never sent while a person holds the controls (an episode
 * can end on its time limit during a takeover). The run fails saying why, and nothing is sent.
 */
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { loadProfileFile } from '../../electron/profiles/load.ts';
import { windowEpisodeEnds } from '../../electron/session/episode-ends.ts';
import { ROOT } from '../helpers/cli.ts';

describe('the reset during a takeover', () => {
  it('is not sent; the run fails saying a person has the controls', async () => {
    const file = path.join(ROOT, 'games', 'sgt-mines', 'profile.yaml');
    const { profile } = loadProfileFile(file);
    const data = await sharp({ create: { width: 240, height: 302, channels: 3, background: '#dddddd' } })
      .jpeg()
      .toBuffer();
    const frame = { data, mime: 'image/jpeg' as const, width: 240, height: 302, scale: 1 };
    const sent: unknown[] = [];
    const bounds = { x: 0, y: 0, width: 240, height: 302 };
    const ends = windowEpisodeEnds(
      {
        profile,
        episodeEnd: { profileDir: path.dirname(file), executor: {} as never },
        target: { game: undefined, locate: async () => ({ id: '1', title: 'Mines', bounds, scaleFactor: 1 }) } as never,
        store: { writeEvidenceFrame: () => 'frames/e001-reset-failed.jpg' } as never,
      },
      {
        view: { frameNow: async () => frame } as never,
        sender: {
          perform: async (a: unknown[]) => {
            sent.push(...a);
            return [];
          },
        } as never,
        takeover: { open: true, agentActs: () => () => {} } as never,
        encode: { imageSize: 1280, format: 'jpeg', quality: 80 },
        warn: () => {},
      },
    )!;
    await expect(ends.beforeEpisode(1, frame, new AbortController().signal)).rejects.toThrow(
      /^reset failed: the reset's input was not sent: a person has the controls/,
    );
    expect(sent).toEqual([]);
    await ends.close();
  });
});
