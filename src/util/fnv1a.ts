/** FNV-1a (32 bits) over bytes [start, end): the hash of the build's open-addressing tables of byte strings. */
export function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let k = start; k < end; k++) h = Math.imul(h ^ bytes[k], 0x01000193);
  return h >>> 0;
}
