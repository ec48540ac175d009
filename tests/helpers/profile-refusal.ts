import { expect } from 'vitest';
import { parseProfile, ProfileError } from '../../electron/profiles/load.ts';

/** The error a profile text is refused with (named `file`); fails the test when it is accepted. */
export function profileRefusal(text: string, file = 'x.yaml'): ProfileError {
  try {
    parseProfile(text, file);
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileError);
    return err as ProfileError;
  }
  throw new Error('the profile was accepted');
}
