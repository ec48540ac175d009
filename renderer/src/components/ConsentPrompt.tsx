/**
 * An outside agent (an MCP client) asks to play a window no profile fits: the person sees which
 * client and which window, and allows it once or denies it. Unanswered, the core denies it
 * after two minutes.
 */
import type { ApiClient, CoreState } from '../../../electron/api/contract.ts';

export function ConsentPrompt({
  client,
  consent,
  onError,
}: {
  client: ApiClient;
  consent: NonNullable<CoreState['consent']>;
  onError: (e: string) => void;
}) {
  const answer = (allow: boolean) =>
    client.request('answerConsent', { id: consent.id, allow }).catch((e: Error) => onError(e.message));
  const { window: w } = consent;
  return (
    <div
      className="banner consent"
      role="alertdialog"
      aria-label="an MCP client asks for a window"
      data-testid="consent"
    >
      <strong>{consent.client}</strong> (an MCP client) asks to play the window{' '}
      <strong data-testid="consent-window">“{w.title || '(untitled)'}”</strong>
      {w.process ? ` of ${w.process}` : ' (its process is unknown)'} (id {w.id}). No profile fits it: allowed, the
      client sees this window and presses keys and clicks in it until its session ends.{' '}
      <button type="button" data-testid="consent-allow" onClick={() => answer(true)}>
        Allow once
      </button>{' '}
      <button type="button" data-testid="consent-deny" onClick={() => answer(false)}>
        Deny
      </button>
    </div>
  );
}
