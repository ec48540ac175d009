/**
 * The core logger: silent until a shell opens the file; JSON lines in gamepilot.log, rotated by
 * size; owner-only; an API key never reaches the file, whether a field carries it, a message
 * quotes it (even JSON-escaped) or a bearer header shows it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addSecret, closeLog, log, openLogFile, scrubSecrets } from '../../electron/util/log.ts';

describe('the log file', () => {
  it('is silent before a shell opens it, then writes JSON lines that rotate by size and never hold a key', async () => {
    log().info('nobody hears this'); // no file yet, no error
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-log-'));
    const key = 'sk-unit-"quote"-0123456789';
    addSecret(key);
    const file = openLogFile(dir, { shell: 'cli', size: '2K', keep: 2 });
    expect(file).toBe(path.join(dir, 'gamepilot.log'));
    const run = log().child({ run: 'r-1' });
    for (let i = 0; i < 60; i++) {
      run.info(
        { apiKey: key, vlm: { apiKey: key, model: 'm' }, headers: { authorization: `Bearer ${key}` } },
        `step ${i} with ${key} and Authorization: Bearer abc.def-ghi`,
      );
      run.warn({ note: JSON.stringify({ key }) }, 'escaped');
    }
    await closeLog();

    const files = readdirSync(dir).sort();
    expect(files).toEqual(['gamepilot.1.log', 'gamepilot.2.log', 'gamepilot.log']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = files.map((f) => readFileSync(path.join(dir, f), 'utf8')).join('');
    expect(text).not.toContain('sk-unit');
    expect(text).not.toContain('abc.def-ghi');
    const last = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const step = last.find((l) => l.msg.startsWith('step'));
    expect(step).toMatchObject({
      level: 'info',
      shell: 'cli',
      run: 'r-1',
      apiKey: '[redacted]',
      vlm: { apiKey: '[redacted]', model: 'm' },
      headers: { authorization: '[redacted]' },
    });
    expect(step.msg).toMatch(/^step \d+ with \[redacted\] and Authorization: Bearer \[redacted\]$/);
    expect(last.find((l) => l.msg === 'escaped').note).toBe('{"key":"[redacted]"}');
    log().info('after close: silent again'); // no throw, nothing written
    expect(readFileSync(file, 'utf8')).not.toContain('after close');
  });

  it('scrubs every registered secret and leaves ordinary text alone', () => {
    addSecret('abc'); // too short to be a key: ignored, or every "abc" would vanish
    addSecret('sk-second-secret');
    expect(scrubSecrets('abc sk-second-secret xyz')).toBe('abc [redacted] xyz');
  });

  it('a log file it cannot write leaves the command running, with one warning', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-log-'));
    mkdirSync(path.join(dir, 'gamepilot.log')); // the name is taken by a folder: the file cannot be opened
    const warnings: string[] = [];
    openLogFile(dir, { shell: 'cli' }, (w) => warnings.push(w));
    log().info('lost');
    await new Promise((r) => setTimeout(r, 200));
    log().info('lost too');
    await closeLog();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/the log file .*gamepilot\.log cannot be written \(.*\); logging stopped/);
  });
});
