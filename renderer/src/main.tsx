import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { ipcClient, takeSessionToken, wsClient, type PreloadBridge } from './api/clients.ts';
import type { ApiClient } from '../../electron/api/contract.ts';
import './styles.css';

/** In the app the preload exposes `window.gamepilot`; in the web shell we dial back with the session token. */
function connect(): { client: ApiClient; onConnection?: (l: (c: boolean) => void) => () => void } {
  const bridge = (window as unknown as { gamepilot?: PreloadBridge }).gamepilot;
  if (bridge) return { client: ipcClient(bridge) };
  const token = takeSessionToken();
  const ws = wsClient(`ws://${location.host}/api/ws?token=${encodeURIComponent(token)}`);
  return { client: ws, onConnection: (l) => ws.onConnection(l) };
}

const { client, onConnection } = connect();
createRoot(document.getElementById('root')!).render(<App client={client} onConnection={onConnection} />);
