/**
 * The shipped semantic APIs (Angry Birds, Slay the Spire, Plants vs. Zombies, Baba Is You) as
 * far as they can be checked without the games: `gamepilot run --window … --action-space
 * semantic --profile <id>` on a stand-in window with the title's name (the profiles also match
 * the games' executables, which a stand-in is not), the model's prompt lists every move with its
 * parameters, and a call is expanded for that window's size and sent through the real input path.
 */
import { mkdtempSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, ROOT, runCli, testModelArgs } from '../helpers/cli.ts';
import { pageWindow, stop } from '../helpers/windows.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { loadCatalog } from '../../electron/profiles/registry.ts';
import { semanticApiOf } from '../../electron/profiles/profile-schema.ts';
import { toWire } from '../../electron/actions/schema.ts';
import type { WindowInfo } from '../../native/index.ts';

const catalog = loadCatalog({ shippedDir: path.join(ROOT, 'games') });
const apiOf = (id: string) => semanticApiOf(catalog.entries.find((e) => e.profile.id === id)!.profile)!;

/** Each title: the stand-in window's title and one call to send. */
const TITLES = [
  { id: 'angry-birds', window: 'Angry Birds', call: { action: 'shoot', angle: 30, power: 0.5 } },
  { id: 'slay-the-spire', window: 'Slay the Spire', call: { action: 'end_turn' } },
  { id: 'plants-vs-zombies', window: 'Plants vs. Zombies', call: { action: 'plant', slot: 1, row: 3, column: 4 } },
  { id: 'baba-is-you', window: 'Baba Is You', call: { action: 'move', direction: 'right', steps: 2 } },
] as const;

let server: FakeOpenAI;
let call: unknown = {};

beforeAll(async () => {
  server = await new FakeOpenAI((body: { stream?: boolean }) =>
    // The screen reader asks without streaming; the player streams.
    body.stream ? { text: answer('one move', [call]) } : { text: '{"value": null, "level": null}' },
  ).start();
});

afterAll(async () => {
  await server.close();
});

describe('the shipped semantic APIs on a stand-in window', () => {
  let win: { child: ChildProcess; window: WindowInfo } | undefined;
  afterAll(async () => {
    if (win) await stop(win.child);
  });

  it.each(TITLES)('$id: the prompt lists its moves and a call becomes input on the window', async (t) => {
    if (win) await stop(win.child);
    win = await pageWindow(`<title>${t.window}</title><body style="margin:0;background:#264"></body>`, t.window, {
      x: 40,
      y: 40,
      width: 960,
      height: 540,
    });
    call = t.call;
    server.requests.length = 0;
    const out = mkdtempSync(path.join(tmpdir(), 'gp-sem-shipped-'));
    const r = await runCli([
      'run',
      '--window',
      t.window,
      '--profile',
      t.id,
      '--action-space',
      'semantic',
      ...testModelArgs(server.baseURL),
      '--episodes',
      '1',
      '--max-steps',
      '1',
      '--no-judge',
      '--runs-dir',
      out,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { meta, steps } = readRun(json(r).run_dir);
    expect(meta.profile).toMatchObject({ id: t.id });
    expect(meta.action_space).toBe('semantic');

    // Every move, with each parameter and an example, in the player's system prompt.
    const api = apiOf(t.id);
    const system = String(server.requests.find((q) => q.body.stream)!.body.messages[0].content);
    for (const m of api.moves) {
      expect(system).toContain(
        `- ${m.params.length ? `${m.name}(${m.params.map((p) => p.name).join(', ')})` : m.name}: `,
      );
      for (const p of m.params) expect(system).toContain(`  - ${p.name}: `);
    }
    expect(system).not.toContain('MOUSE_DOWN'); // no GUI action list in the semantic space

    // The call, expanded for this window's client size, in the frame's pixels, sent in full.
    const step = steps[0]!;
    const parsed = api.parse(
      `${t.call.action}(${Object.entries(t.call)
        .filter(([k]) => k !== 'action')
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')})`,
    );
    if (!parsed.ok) throw new Error(parsed.error);
    expect(step.actions).toEqual([{ action: parsed.move }]);
    const size = { width: step.window!.width, height: step.window!.height };
    const expanded = api.expand(parsed.move, size);
    if (!expanded.ok) throw new Error(expanded.error);
    const scale = step.frame_size!.scale;
    const inFrame = expanded.actions.map((a) => {
      const w = toWire(a) as { action_type: string; parameters: Record<string, unknown> };
      const p = w.parameters;
      if (typeof p.x !== 'number' || typeof p.y !== 'number') return w;
      return { ...w, parameters: { ...p, x: Math.round(p.x * scale), y: Math.round(p.y * scale) } };
    });
    expect(step.outcomes).toEqual([{ action: parsed.move, ok: true, expanded: inFrame }]);
  });
});
