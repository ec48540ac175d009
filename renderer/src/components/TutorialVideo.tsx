/**
 * A tutorial video of the runs folder, played in the Record tab: read in chunks over the
 * contract (IPC or the socket alike) into a Blob, so it plays with the browser's own controls.
 */
import { useEffect, useState } from 'react';
import type { ApiClient, Results } from '../../../electron/api/contract.ts';

export function TutorialVideo({ client, id }: { client: ApiClient; id: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [loaded, setLoaded] = useState({ got: 0, total: 0 });
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    let made: string | null = null;
    (async () => {
      const parts: Uint8Array<ArrayBuffer>[] = [];
      let offset: number | null = 0;
      let mime = 'video/mp4';
      while (offset !== null && live) {
        const c: Results['readTutorialVideo'] = await client.request('readTutorialVideo', { id, offset });
        const bin = atob(c.data);
        const bytes = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        parts.push(bytes);
        mime = c.mime;
        offset = c.next;
        setLoaded({ got: c.offset + bytes.length, total: c.total });
      }
      if (!live) return;
      made = URL.createObjectURL(new Blob(parts, { type: mime }));
      setUrl(made);
    })().catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [client, id]);

  if (error) return <p className="error">Cannot play the tutorial video: {error}</p>;
  if (!url)
    return (
      <p className="muted" data-testid="tutorial-video-loading">
        Loading the tutorial video… {loaded.total ? Math.round((loaded.got / loaded.total) * 100) : 0} %
      </p>
    );
  return (
    <figure className="tutorial-video">
      <video src={url} controls autoPlay muted data-testid="tutorial-video" />
      <figcaption className="muted">{id.split('/').at(-1)}</figcaption>
    </figure>
  );
}
