/**
 * Files people already have keep the names an older version wrote: a field renamed since is read
 * under its new name, so nothing is lost and the next write uses the new one.
 */

/**
 * `stored` with each former key (former → name) read as its name; a field stored under both keeps
 * the new name's value. Anything but a plain object is returned as it is.
 */
export function readFormerNames(stored: unknown, formerNames: Readonly<Record<string, string>>): unknown {
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return stored;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) {
    const name = Object.hasOwn(formerNames, key) ? formerNames[key]! : key;
    if (name === key || !Object.hasOwn(stored, name)) out[name] = value;
  }
  return out;
}
