/**
 * The rookie watches the agents' tutorial video (GameVerse App. B): a walkthrough put in
 * `<runs>/tutorials/2048/` is found by title in the Record tab, read over the socket in chunks
 * and played by Debian's Chromium with its real length and size; the second play records that
 * file as the tutorial watched. A video id that tries to leave the runs folder is refused.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testVideo } from '../helpers/test-video.ts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, shellClient, startWebShellCli } from '../helpers/web-ui.ts';
import type { WsClient } from '../../renderer/src/api/clients.ts';
import { stop } from '../helpers/windows.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
let web: ChildProcess;
let browser: Browser;
let page: Page;
let runsDir = '';
let client: WsClient;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-tutorial-video-'));
  runsDir = path.join(tmp, 'runs');
  const folder = path.join(runsDir, 'tutorials', '2048');
  mkdirSync(folder, { recursive: true });
  // 6 s at 320×240, H.264 as walkthroughs usually come; over 4 MiB would take two chunks, so it is kept small
  // and the chunking is checked over the API below with a larger one.
  testVideo(path.join(folder, 'walkthrough.mp4'), { seconds: 6 });
  // A symlink to a file outside the runs folder is never offered.
  writeFileSync(path.join(tmp, 'secret.mp4'), 'not for the page');
  symlinkSync(path.join(tmp, 'secret.mp4'), path.join(folder, 'linked.mp4'));
  const shell = await startWebShellCli(['--no-demo', '--runs-dir', runsDir, '--config-dir', path.join(tmp, 'config')]);
  web = shell.child;
  client = shellClient(shell);
  await client.ready;
  ({ browser, page } = await launchUiBrowser({ x: 0, width: 1100, height: 900 }));
  await page.goto(shell.url);
});

afterAll(async () => {
  client?.close();
  await browser?.close();
  if (web) await stop(web);
});

/** One contract request over the shell's socket; a refusal comes back as its error message. */
async function api(method: string, params: unknown): Promise<{ result?: any; error?: string }> {
  try {
    return { result: await client.request(method as never, params as never) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe('the rookie’s tutorial video', () => {
  it('is found by title, played in the Record tab, and recorded with the second play', async () => {
    await page.getByTestId('tab-record').click();
    await page.getByTestId('participant').fill('r07');
    await page.getByTestId('role').selectOption('rookie');
    await page.getByTestId('record-target').getByTestId('game-2048').click();
    await expect.poll(() => page.getByTestId('trials').inputValue()).toBe('5');
    await page.getByTestId('trials').fill('1');
    await page.getByTestId('consent').check();
    await page.getByTestId('begin').click();
    await page.getByTestId('read-done').click();
    const playOnce = async () => {
      await page.getByTestId('start-recording').click();
      await page.getByTestId('rec-indicator').waitFor({ timeout: 20_000 });
      await expect.poll(() => page.getByTestId('rec-indicator').textContent()).toMatch(/[1-9]\d* frames/);
      await page.getByTestId('stop-recording').click();
      await expect.poll(() => page.getByTestId('rec-indicator').count(), { timeout: 15_000 }).toBe(0);
      await page.getByTestId('play-done').click();
    };
    await playOnce();

    // The video plays: the browser decoded it, so its length and size are the file's.
    const video = page.getByTestId('tutorial-video');
    await video.waitFor({ timeout: 30_000 });
    await expect
      .poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(1);
    const facts = await video.evaluate((v: HTMLVideoElement) => ({
      duration: v.duration,
      width: v.videoWidth,
      height: v.videoHeight,
    }));
    expect(facts.duration).toBeGreaterThan(5.5);
    expect(facts.duration).toBeLessThan(6.5);
    expect([facts.width, facts.height]).toEqual([320, 240]);
    // The video comes first, the rookie's own first play after it; the symlink leading out is not offered.
    const options = await page.getByTestId('tutorial-choice').locator('option').allTextContents();
    expect(options[0]).toMatch(/^video walkthrough\.mp4 · /);
    expect(options.slice(1).every((o) => o.startsWith('human-rookie'))).toBe(true);
    expect(options.join('\n')).not.toContain('linked');
    await page.screenshot({ path: path.join(SHOTS, 'record-tutorial-video.png') });
    await page.getByTestId('tutorial-done').click();
    await playOnce();
    await page.getByTestId('protocol-done').waitFor();

    const second = readdirSync(runsDir)
      .filter((d) => d !== 'tutorials')
      .map((d) => JSON.parse(readFileSync(path.join(runsDir, d, 'run.json'), 'utf8')))
      .find((m) => m.stage === 'play-2');
    expect(second.config.tutorial).toBe(path.join(runsDir, 'tutorials', '2048', 'walkthrough.mp4'));
  });

  it('reads a video in chunks that add up to the file, and refuses ids that leave the folder', async () => {
    const folder = path.join(runsDir, 'tutorials', '2048');
    const big = Buffer.alloc(9 * 1024 * 1024 + 123);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    writeFileSync(path.join(folder, 'long.webm'), big);
    const parts: Buffer[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const r = await api('readTutorialVideo', { id: 'tutorials/2048/long.webm', offset });
      expect(r.error).toBeUndefined();
      parts.push(Buffer.from(r.result.data, 'base64'));
      expect(r.result).toMatchObject({ total: big.length, mime: 'video/webm' });
      offset = r.result.next;
    }
    expect(parts.length).toBe(3);
    expect(Buffer.concat(parts).equals(big)).toBe(true);

    for (const id of ['tutorials/2048/../../etc/passwd.mp4', '/etc/x.mp4', 'tutorials/2048/linked.mp4']) {
      const r = await api('readTutorialVideo', { id, offset: 0 });
      expect(r.error, id).toMatch(/tutorial video/);
      expect(JSON.stringify(r)).not.toContain(Buffer.from('not for the page').toString('base64'));
    }
    // The symlink is refused as what it is, not as a missing file.
    expect((await api('readTutorialVideo', { id: 'tutorials/2048/linked.mp4' })).error).toMatch(/not a plain file/);
    const found = (await api('findTutorial', { title: '2048' })).result;
    expect(found.folder).toBe('tutorials/2048');
    expect(
      found.candidates
        .filter((c: { kind: string }) => c.kind === 'video')
        .map((c: { id: string }) => c.id)
        .sort(),
    ).toEqual(['tutorials/2048/long.webm', 'tutorials/2048/walkthrough.mp4']);
  });
});
