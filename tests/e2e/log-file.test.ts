/**
 * `gamepilot run` and `gamepilot web` leave a log a person can attach to a bug report:
 * gamepilot.log in the config folder, JSON lines, the run id on every line of a run — and never
 * the API key, whether it came from OPENAI_API_KEY, --api-key or Settings. Real CLI processes,
 * real built-in game windows (2048); the model is the local test server.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli, testModelArgs } from '../helpers/cli.ts';
import { shellClient, startWebShellCli } from '../helpers/web-ui.ts';
import { stop } from '../helpers/windows.ts';

const ENV_KEY = 'sk-env-LOGTEST-0123456789abcdef';
const ARG_KEY = 'sk-arg-LOGTEST-"quoted"\\slash';
const SAVED_KEY = 'sk-saved-LOGTEST-fedcba9876543210';
const KEYS = ['left', 'up', 'right', 'down'];

let server: FakeOpenAI;
beforeAll(async () => {
  server = await new FakeOpenAI((_body, i) => ({
    text: answer(`step ${i}: sliding`, [{ action_type: 'PRESS', parameters: { key: KEYS[i % 4] } }]),
  })).start();
});
afterAll(() => server?.close());

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-log-'));

/** Every line of every log file in `dir` (the current one and rotated ones), parsed. */
function logLines(dir: string): { text: string; lines: Record<string, any>[] } {
  const files = readdirSync(dir).filter((f) => /^gamepilot(\.\d+)?\.log$/.test(f));
  const text = files.map((f) => readFileSync(path.join(dir, f), 'utf8')).join('');
  return {
    text,
    lines: text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
  };
}

describe('the log file', () => {
  it('gamepilot run leaves gamepilot.log with the run id on its lines, and no API key', async () => {
    const config = tmp();
    const r = await runCli(
      [
        'run',
        '--game',
        '2048',
        ...testModelArgs(server.baseURL),
        '--api-key',
        ARG_KEY,
        '--episodes',
        '1',
        '--max-steps',
        '2',
        '--runs-dir',
        tmp(),
        '--json',
      ],
      {
        env: { GAMEPILOT_CONFIG_DIR: config, OPENAI_API_KEY: ENV_KEY },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const runId = path.basename(json(r).run_dir);
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${ARG_KEY}`); // the key was really used

    const file = path.join(config, 'gamepilot.log');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const { text, lines } = logLines(config);
    expect(lines[0]).toMatchObject({ level: 'info', shell: 'cli', msg: 'gamepilot run' });
    const runLines = lines.filter((l) => l.run === runId);
    expect(runLines.map((l) => l.msg)).toEqual(['run started', 'step', 'step', 'episode ended', 'run ended']);
    expect(runLines[0]).toMatchObject({ game: '2048', agent: 'vlm', model: 'test-vlm' });
    expect(runLines[1]).toMatchObject({ episode: 1, step: 1, actions: [expect.stringMatching(/^PRESS/)] });
    expect(runLines.at(-1)).toMatchObject({ status: 'completed' });
    expect(lines.at(-1)).toMatchObject({ msg: 'gamepilot run ended', code: 0 });

    for (const key of [ENV_KEY, ARG_KEY, JSON.stringify(ARG_KEY).slice(1, -1), 'LOGTEST'])
      expect(text).not.toContain(key);
    expect(lines[0]!.argv).toContain('[redacted]'); // the command line is logged, its key scrubbed
  });

  it('gamepilot web leaves gamepilot.log with its runs, started over the API, and no API key', async () => {
    const config = tmp();
    const web = await startWebShellCli(['--no-demo', '--runs-dir', tmp(), '--config-dir', config], {
      GAMEPILOT_CONFIG_DIR: config,
      OPENAI_API_KEY: ENV_KEY,
    });
    const api = shellClient(web);
    try {
      await api.request('saveSettings', {
        settings: { provider: 'custom', baseUrl: server.baseURL, model: 'test-vlm' },
        apiKey: SAVED_KEY,
      });
      const ended = new Promise<void>((resolve) =>
        api.onEvent((e) => e.type === 'state' && e.state.status === 'idle' && e.state.run === null && resolve()),
      );
      const { id } = await api.request('startRun', {
        target: { game: '2048' },
        agent: 'vlm',
        episodes: 1,
        maxSteps: 2,
      });
      await ended;
      expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SAVED_KEY}`);
      api.close();
      await stop(web.child); // SIGTERM: the shell closes and flushes its log

      const { text, lines } = logLines(config);
      expect(lines[0]).toMatchObject({ shell: 'web', msg: 'gamepilot web' });
      expect(lines.some((l) => l.msg === 'web shell listening on 127.0.0.1')).toBe(true);
      expect(lines.filter((l) => l.run === id).map((l) => l.msg)).toEqual([
        'run started',
        'step',
        'step',
        'episode ended',
        'run ended',
      ]);
      expect(lines.at(-1)).toMatchObject({ msg: 'gamepilot web ended', code: 0 });
      for (const key of [ENV_KEY, SAVED_KEY, new URL(web.url).searchParams.get('token')!, 'LOGTEST'])
        expect(text).not.toContain(key);
    } finally {
      api.close();
      await stop(web.child);
    }
  });
});
