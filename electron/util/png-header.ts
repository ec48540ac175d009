/** A PNG's size from the first 24 bytes of the file (its IHDR chunk); undefined when they are no IHDR. */
export function pngHeaderSize(head: Buffer): { width: number; height: number } | undefined {
  return head.length >= 24 && head.toString('latin1', 12, 16) === 'IHDR'
    ? { width: head.readUInt32BE(16), height: head.readUInt32BE(20) }
    : undefined;
}
