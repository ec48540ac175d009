/**
 * Loads nut-js once, lazily (it opens the display when loaded), with its auto-delays off:
 * the defaults add 300 ms per key and 100 ms per mouse action.
 */
type Nut = typeof import('@nut-tree-fork/nut-js');
let loading: Promise<Nut> | undefined;

export function loadNut(): Promise<Nut> {
  loading ??= import('@nut-tree-fork/nut-js').then((nut) => {
    nut.keyboard.config.autoDelayMs = 0;
    nut.mouse.config.autoDelayMs = 0;
    nut.mouse.config.mouseSpeed = 100000;
    return nut;
  });
  return loading;
}
