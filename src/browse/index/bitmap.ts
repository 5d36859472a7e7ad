/**
 * Sets of product ids (catalog positions 0 .. size - 1) as bitmaps: bit `id & 31` of word
 * `id >>> 5`, 32 products a word. What the in-memory browse index (version-index.ts) filters,
 * counts and walks with.
 */

export function bitmap(size: number): Uint32Array {
  return new Uint32Array((size + 31) >>> 5);
}

export function has(bits: Uint32Array, id: number): boolean {
  return (((bits[id >>> 5] as number) >>> (id & 31)) & 1) === 1;
}

/** The ids 0 .. size - 1 for which `test` holds. */
export function where(size: number, test: (id: number) => boolean): Uint32Array {
  const bits = bitmap(size);
  for (let id = 0; id < size; id++) if (test(id)) bits[id >>> 5] = (bits[id >>> 5] as number) | (1 << (id & 31));
  return bits;
}

export function setAll(bits: Uint32Array, ids: Uint32Array): void {
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as number;
    bits[id >>> 5] = (bits[id >>> 5] as number) | (1 << (id & 31));
  }
}

/** `out = a & b`, word by word. */
export function and(out: Uint32Array, a: Uint32Array, b: Uint32Array): Uint32Array {
  for (let i = 0; i < out.length; i++) out[i] = (a[i] as number) & (b[i] as number);
  return out;
}

/** `out = a & ~b`, word by word. */
export function andNot(out: Uint32Array, a: Uint32Array, b: Uint32Array): Uint32Array {
  for (let i = 0; i < out.length; i++) out[i] = (a[i] as number) & ~(b[i] as number);
  return out;
}

/** `out |= a`, word by word. */
export function orInto(out: Uint32Array, a: Uint32Array): Uint32Array {
  for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) | (a[i] as number);
  return out;
}

/** Set bits of one 32-bit word. */
export function bitCount(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export function popcount(bits: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < bits.length; i++) n += bitCount(bits[i] as number);
  return n;
}

/** The ids of a bitmap's set bits, in order. */
export function members(bits: Uint32Array): Uint32Array {
  const out = new Uint32Array(popcount(bits));
  let at = 0;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w] as number;
    while (word !== 0) {
      const low = word & -word;
      out[at++] = (w << 5) | (31 - Math.clz32(low));
      word ^= low;
    }
  }
  return out;
}

/**
 * Up to `take` set bits of `bits` in id order, ascending from `from` (inclusive) or, backwards,
 * descending from it; appended to `out`. Whole empty words are skipped.
 */
export function scan(bits: Uint32Array, from: number, backwards: boolean, take: number, out: number[]): void {
  if (!backwards) {
    let w = from >>> 5;
    let word = w < bits.length ? ((bits[w] as number) >>> (from & 31)) << (from & 31) : 0;
    while (out.length < take) {
      while (word === 0) {
        if (++w >= bits.length) return;
        word = bits[w] as number;
      }
      const low = word & -word;
      out.push((w << 5) | (31 - Math.clz32(low)));
      word ^= low;
    }
    return;
  }
  if (from < 0) return;
  let w = from >>> 5;
  const keep = from & 31;
  let word = keep === 31 ? (bits[w] as number) : (bits[w] as number) & ((1 << (keep + 1)) - 1);
  while (out.length < take) {
    while (word === 0) {
      if (--w < 0) return;
      word = bits[w] as number;
    }
    const high = 31 - Math.clz32(word);
    out.push((w << 5) | high);
    word ^= 1 << high;
  }
}
