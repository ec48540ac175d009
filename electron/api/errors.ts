/**
 * What kind of failure an error is, for the wire: both transports answer a failed request
 * with the message and this code, so the UI can react to kinds of failure (busy, bad input,
 * a window that closed…) rather than to words.
 */
import OpenAI from 'openai';
import { CodedError, type ErrorCode } from '../domain.ts';
import { RunFileError } from '../store/run-files.ts';
import { CallStopped, ModelCallError } from '../agents/model-call-error.ts';

export function errorCode(err: unknown): ErrorCode {
  if (err instanceof CodedError) return err.code;
  // A file a run names that is not a plain file inside it: as good as missing.
  if (err instanceof RunFileError) return 'not-found';
  if (err instanceof CallStopped || err instanceof OpenAI.APIUserAbortError) return 'cancelled';
  if (err instanceof ModelCallError || err instanceof OpenAI.APIError) return 'model-unreachable';
  if ((err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return 'not-found';
  return 'internal';
}

/** The error half of a wire response. */
export function wireError(err: unknown): { error: string; code: ErrorCode } {
  return { error: err instanceof Error ? err.message : String(err), code: errorCode(err) };
}
