// The renderer's only door: request(method, params) and onEvent(listener). Nothing else.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';

contextBridge.exposeInMainWorld('gamepilot', {
  request: (method: string, params: unknown) => ipcRenderer.invoke('gamepilot:request', { method, params }),
  onEvent: (listener: (e: unknown) => void) => {
    const wrapped = (_e: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on('gamepilot:event', wrapped);
    return () => ipcRenderer.removeListener('gamepilot:event', wrapped);
  },
});
