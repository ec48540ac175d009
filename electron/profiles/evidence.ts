/**
 * A milestone's evidence frame lives beside its profile, in `<id>.evidence/`. A profile file can
 * come from anywhere (a user's folder, a copy from a friend), so the name it gives is resolved
 * with the run-file rule — a plain relative path, no `..`, no symlink on the way — and only
 * inside that one folder, and only an image is read.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { CodedError } from '../domain.ts';
import { resolveRunFile, RunFileError } from '../store/run-files.ts';

/** Largest evidence frame served (an extracted frame is a JPEG of a few hundred KB). */
const MAX_EVIDENCE_BYTES = 16 * 1024 * 1024;
const IMAGE = /\.(jpe?g|png)$/i;

/** The evidence file (absolute) that `evidence`, as the profile in `profileFile` names it, stands for. */
export function resolveEvidence(profileFile: string, id: string, evidence: string): string {
  const folder = `${id}.evidence`;
  const parts = evidence.split(/[\\/]+/);
  if (parts[0] !== folder || parts.length < 2)
    throw new CodedError('bad-input', `evidence "${evidence}" is not in the profile's evidence folder ${folder}/`);
  if (!IMAGE.test(evidence))
    throw new CodedError('bad-input', `evidence "${evidence}" is not an image (.jpg, .jpeg, .png)`);
  try {
    return resolveRunFile(path.dirname(profileFile), evidence, 'profile folder');
  } catch (err) {
    if (err instanceof RunFileError)
      throw new CodedError(/is missing from/.test(err.message) ? 'not-found' : 'bad-input', err.message);
    throw err;
  }
}

/** The evidence frame as a data URL for the UI. */
export function readEvidence(profileFile: string, id: string, evidence: string): string {
  const file = resolveEvidence(profileFile, id, evidence);
  const size = statSync(file).size;
  if (size > MAX_EVIDENCE_BYTES)
    throw new CodedError('bad-input', `evidence ${file} is ${size} bytes; an evidence frame is at most 16 MiB`);
  const mime = /\.png$/i.test(file) ? 'image/png' : 'image/jpeg';
  return `data:${mime};base64,${readFileSync(file).toString('base64')}`;
}
