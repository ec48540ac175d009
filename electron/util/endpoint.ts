/**
 * Where an API key may go. A key belongs to the person who configured it, with the endpoint they
 * configured it for (Settings, or the environment's OPENAI_BASE_URL); a sweep file, a queue job
 * or a profile may ask for another endpoint, but it is used only when the key's holder allowed
 * it (`--allow-endpoint`, or a confirmation in the app). Otherwise a file dropped in the runs
 * folder or a job pushed to Redis could collect keys.
 */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** Same endpoint, ignoring a trailing slash and the case of scheme and host. */
export function sameEndpoint(a: string | undefined, b: string | undefined): boolean {
  const norm = (u: string) => {
    try {
      const x = new URL(u);
      return `${x.protocol}//${x.host}${x.pathname.replace(/\/+$/, '')}${x.search}`;
    } catch {
      return u.trim().replace(/\/+$/, '');
    }
  };
  return !!a && !!b && norm(a) === norm(b);
}

/** The endpoint the environment's key is for: OPENAI_BASE_URL, else OpenAI's. */
export function envEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  return env.OPENAI_BASE_URL?.trim() || OPENAI_BASE_URL;
}

/** A request to send a key to an endpoint its holder did not allow. */
export class EndpointRefused extends Error {
  constructor(
    readonly asked: string,
    readonly own: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The endpoint to use: `asked` (what a file or job names) when it is the key's own endpoint or
 * one the holder allowed, else a refusal saying who asked, where the key is for, and `how` to
 * allow it. Nothing asked: the key's own endpoint.
 */
export function allowedEndpoint(
  asked: string | undefined,
  own: string,
  allowed: readonly string[],
  who: string,
  how: string,
): string {
  if (!asked || sameEndpoint(asked, own) || allowed.some((a) => sameEndpoint(asked, a))) return asked ?? own;
  throw new EndpointRefused(
    asked,
    own,
    `${who} asks to send the API key to ${asked}, but the key is for ${own}: nothing was sent; ${how}`,
  );
}

/**
 * A base URL as run files record it: scheme, host and path. The query (`?key=…`, `?api-version=…`)
 * and any credentials stay out: a query may carry a key, and the path says which endpoint it was.
 */
export function recordedEndpoint(url: string): string {
  try {
    const u = new URL(url.trim());
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return url.replace(/[?#].*$/s, '').replace(/\/\/[^/@]*@/, '//');
  }
}
