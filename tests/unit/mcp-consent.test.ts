/**
 * The consent rule for MCP clients: built-in and profiled windows are free, --windows lets more
 * through, the person is asked about the rest, and terminals, shells, password managers and
 * Gamepilot's own windows are never given, whatever is allowed.
 */
import { describe, expect, it } from 'vitest';
import { neverRule, WindowConsent, type WindowFacts } from '../../electron/mcp/consent.ts';

const win = (title: string, process?: string, own = false): WindowFacts => ({ id: '0x1', title, process, own });

describe('neverRule', () => {
  it.each([
    ['xterm', /xterm is a terminal/],
    ['gnome-terminal-server', /a terminal/],
    ['WindowsTerminal.exe', /WindowsTerminal\.exe is a terminal/],
    ['cmd.exe', /a shell/],
    ['powershell.exe', /a shell/],
    ['bash', /a shell/],
    ['keepassxc', /a password manager/],
  ])('%s is never given', (process, why) => {
    expect(neverRule(win('anything', process))).toMatch(why);
  });

  it("Gamepilot's own windows, by title or by process, are never given", () => {
    expect(neverRule(win('Gamepilot · 2048 · run', 'chromium'))).toMatch(/Gamepilot's own window/);
    expect(neverRule(win('Live', 'node', true))).toMatch(/Gamepilot's own window/);
  });

  it('a game, a browser or an unknown process is not refused by rule', () => {
    expect(neverRule(win('Fifteen', 'sgt-fifteen'))).toBeUndefined();
    expect(neverRule(win('Some browser game - Chromium', 'chromium'))).toBeUndefined();
    expect(neverRule(win('Inbox', undefined))).toBeUndefined();
    expect(neverRule(win('st', 'steam'))).toBeUndefined(); // a name is matched whole
  });
});

describe('WindowConsent', () => {
  it('lists windows a profile fits or --windows matches, never a refused one', () => {
    const c = new WindowConsent({ windows: '^Doom' });
    expect(c.listed(win('Fifteen', 'sgt-fifteen'), ['sgt-fifteen'])).toBe(true);
    expect(c.listed(win('DOOM II', 'gzdoom'), [])).toBe(true); // any case
    expect(c.listed(win('Inbox', 'thunderbird'), [])).toBe(false);
    expect(c.listed(win('Doom shell', 'xterm'), ['x'])).toBe(false);
  });

  it('asks the person about any other window, and says who refused', async () => {
    const asked: unknown[] = [];
    const c = new WindowConsent({
      ask: async (q) => {
        asked.push(q);
        return q.window.title === 'Allowed';
      },
    });
    await expect(c.check(win('Allowed', 'foo'), [], 'mcp:x')).resolves.toBeUndefined();
    await expect(c.check(win('Inbox', 'thunderbird'), [], 'mcp:x')).rejects.toThrow(
      /the person did not allow mcp:x to play window 0x1/,
    );
    await expect(c.check(win('Fifteen', 'sgt-fifteen'), ['sgt-fifteen'], 'mcp:x')).resolves.toBeUndefined();
    await expect(c.check(win('Allowed', 'xterm'), [], 'mcp:x')).rejects.toThrow(
      /refused to MCP clients: xterm is a terminal/,
    );
    expect(asked).toEqual([
      { client: 'mcp:x', window: { id: '0x1', title: 'Allowed', process: 'foo' } },
      { client: 'mcp:x', window: { id: '0x1', title: 'Inbox', process: 'thunderbird' } },
    ]);
  });

  it('with nobody to ask, an unlisted window is refused saying how to allow it', async () => {
    await expect(new WindowConsent().check(win('Inbox', 'thunderbird'), [], 'mcp:x')).rejects.toThrow(
      /fits no profile and nobody can allow it here: start gamepilot mcp with --windows REGEX/,
    );
  });

  it('a --windows that is no pattern is a clear error', () => {
    expect(() => new WindowConsent({ windows: '(' })).toThrow(/--windows "\(" is not a pattern/);
  });
});
