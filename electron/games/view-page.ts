/**
 * The one HTML page every built-in game view runs in. It draws what the engine sends,
 * forwards the real input it receives (keys, clicks) to the engine, and acknowledges each
 * render with the rectangles of its interactive elements.
 */
import { escapeHtml } from '../util/escape-html.ts';

export function viewPageHtml(token: string, title: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src ws://127.0.0.1:* ws://localhost:*">
<style>html,body{margin:0;height:100%;overflow:hidden}</style></head>
<body><div id="root">Loading…</div><script>
(() => {
  const ws = new WebSocket('ws://' + location.host + '/ws/${token}');
  const send = (m) => ws.readyState === 1 && ws.send(JSON.stringify(m));
  const rects = () => [...document.querySelectorAll('[data-hit]')].map((e) => {
    const r = e.getBoundingClientRect(), d = devicePixelRatio;
    return { id: e.dataset.hit, x: r.x * d, y: r.y * d, width: r.width * d, height: r.height * d };
  });
  // The harness is gone (ended or crashed): close rather than linger as an orphan window.
  ws.onclose = () => { document.getElementById('root').textContent = 'Gamepilot has stopped.'; setTimeout(() => window.close(), 200); };
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type !== 'render') return;
    document.getElementById('root').innerHTML = msg.html;
    requestAnimationFrame(() => requestAnimationFrame(() => send({ type: 'rendered', version: msg.version, hits: rects(),
      metrics: { dpr: devicePixelRatio, innerWidth, innerHeight, outerWidth, outerHeight } })));
  };
  addEventListener('keydown', (e) => {
    if (e.key.startsWith('Arrow') || e.key === ' ') e.preventDefault();
    if (!e.repeat) send({ type: 'key', key: e.key });
  });
  addEventListener('mousedown', (e) => {
    if (e.button !== 0) return;
    const hit = e.target.closest && e.target.closest('[data-hit]');
    send({ type: 'click', hit: hit ? hit.dataset.hit : null });
  });
  addEventListener('contextmenu', (e) => e.preventDefault());
})();
</script></body></html>`;
}
