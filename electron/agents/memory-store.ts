/**
 * The memory agent's long-term store: one JSON file per scope (`<config>/memory/<scope>.json`,
 * replaced atomically), indexed in process by Orama — vector search (cosine) when the memories
 * carry embeddings, BM25 full-text search for the lexical fallback. No server. A file that does
 * not read as a store is moved aside (`.corrupt-<time>`) and the store starts empty, with a warning.
 *
 * Several runs may share a scope at once (a sweep's workers, the app and the CLI). Every write
 * is a read-merge-write under the file's lock (`<scope>.json.lock`, ../util/file-lock.ts): the
 * file as it is now, with this run's change applied to it, so each run's memories are kept;
 * a memory is known by its id. Before the duplicate check of a new memory the store takes in
 * what other runs saved meanwhile, so the dedupe threshold applies across runs too.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { create, insert, search, type AnyOrama } from '@orama/orama';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { withFileLockSync } from '../util/file-lock.ts';
import { CodedError } from '../domain.ts';

/** A scope names a store file: a profile or game id, optionally per participant (e.g. `ace-attorney.p07`). */
export const MEMORY_SCOPE = /^\w[\w.-]{0,63}$/;

export interface MemoryEntry {
  id: string;
  text: string;
  /** ISO time it was saved. */
  created: string;
  /** Where it was learnt: run id, episode, step. */
  run?: string;
  episode?: number;
  step?: number;
  /** Its embedding under the store's `embedding.model` (absent when saved during lexical retrieval). */
  vector?: number[];
}

export interface Retrieved {
  id: string;
  text: string;
  similarity: number;
}

const StoreFileSchema = z.object({
  version: z.literal(1),
  scope: z.string(),
  /** The model the vectors come from; vectors of another model are dropped on load. */
  embedding: z.object({ model: z.string(), dims: z.number().int().positive() }).nullable(),
  memories: z.array(
    z.object({
      id: z.string().min(1),
      text: z.string(),
      created: z.string(),
      run: z.string().optional(),
      episode: z.number().optional(),
      step: z.number().optional(),
      vector: z.array(z.number()).optional(),
    }),
  ),
});
type StoreFile = z.infer<typeof StoreFileSchema>;

/** The store file of a scope; a scope that could name another path is refused. */
export function memoryFile(configDir: string, scope: string): string {
  if (!MEMORY_SCOPE.test(scope) || scope.includes('..'))
    throw new CodedError(
      'bad-input',
      `a memory scope is a plain name of letters, digits, '.', '-', '_' (up to 64), got "${scope}"`,
    );
  return path.join(configDir, 'memory', `${scope}.json`);
}

/** The scopes that have a store file, with how many memories each holds. */
export function listScopes(configDir: string): { scope: string; memories: number; bytes: number; file: string }[] {
  const dir = path.join(configDir, 'memory');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && MEMORY_SCOPE.test(f.slice(0, -5)))
    .sort()
    .map((f) => {
      const file = path.join(dir, f);
      let memories = -1;
      try {
        memories = StoreFileSchema.parse(JSON.parse(readFileSync(file, 'utf8'))).memories.length;
      } catch {
        /* damaged: reported as -1; opening it moves it aside */
      }
      return { scope: f.slice(0, -5), memories, bytes: statSync(file).size, file };
    });
}

/** Deletes a scope's memories; returns how many there were (0 when it had no file). */
export function clearScope(configDir: string, scope: string): number {
  const file = memoryFile(configDir, scope);
  if (!existsSync(file)) return 0;
  // Under the lock, so a run saving at this moment does not write back what was cleared.
  return withFileLockSync(file, () => {
    let n = 0;
    try {
      n = StoreFileSchema.parse(JSON.parse(readFileSync(file, 'utf8'))).memories.length;
    } catch {
      /* damaged (or gone): cleared all the same */
    }
    rmSync(file, { force: true });
    return n;
  });
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the memory store ${file}: ${(err as Error).message}`);
  }
}

/** A store file's text as a store; throws (a ZodError, or why) when it is not one. */
function parseStore(text: string): StoreFile {
  const data = StoreFileSchema.parse(JSON.parse(text));
  const ids = new Set<string>();
  for (const m of data.memories) {
    if (ids.has(m.id)) throw new Error(`memory id "${m.id}" appears twice`);
    ids.add(m.id);
  }
  return data;
}

function damage(err: unknown): string {
  return err instanceof z.ZodError
    ? `${err.issues[0]?.path.join('.')}: ${err.issues[0]?.message}`
    : (err as Error).message;
}

/** Lower-case content words of a text, for lexical similarity. */
export function contentWords(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return new Set(words.filter((w) => (w.length > 1 || /\d/.test(w)) && !STOPWORDS.has(w)));
}

/** How much of a memory the query covers: |query ∩ memory| / |memory| (its content words). */
export function lexicalCoverage(query: Set<string>, memory: Set<string>): number {
  if (!query.size || !memory.size) return 0;
  let shared = 0;
  for (const w of memory) if (query.has(w)) shared++;
  return shared / memory.size;
}

/** How alike two memories are, symmetrically: 2|A ∩ B| / (|A| + |B|) (Dice). */
export function lexicalLikeness(a: Set<string>, b: Set<string>): number {
  if (!a.size || !b.size) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return (2 * shared) / (a.size + b.size);
}

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

export class MemoryStore {
  private data: StoreFile;
  private textIndex: AnyOrama;
  private vectorIndex: AnyOrama | undefined;
  /** Content words of each memory, for lexical scores. */
  private words = new Map<string, Set<string>>();
  /** The file's text as this store last read or wrote it (undefined: no file): unchanged, nobody else wrote. */
  private seen: string | undefined;
  /** Memories this store added or changed that are not in the file yet (a write failed). */
  private pending = new Set<string>();
  /** This store changed the embedding model and the file does not say so yet. */
  private embeddingChanged = false;

  private constructor(
    readonly file: string,
    readonly scope: string,
    data: StoreFile,
    seen: string | undefined,
    private readonly warn: (message: string) => void,
  ) {
    this.data = data;
    this.seen = seen;
    this.textIndex = create({ schema: { text: 'string' } as const });
    this.reindex();
  }

  /**
   * Opens (or starts) a scope's store. A file that is not a store is moved aside as
   * `<file>.corrupt-<time>` and the store starts empty; `warn` says so.
   */
  static open(configDir: string, scope: string, warn: (message: string) => void = () => {}): MemoryStore {
    const file = memoryFile(configDir, scope);
    const empty: StoreFile = { version: 1, scope, embedding: null, memories: [] };
    const text = readText(file);
    if (text === undefined) return new MemoryStore(file, scope, empty, undefined, warn);
    try {
      return new MemoryStore(file, scope, { ...parseStore(text), scope }, text, warn);
    } catch (err) {
      // Decided again under the lock, so a good file another run just wrote is not moved aside.
      const moved = withFileLockSync(file, () => {
        const now = readText(file);
        if (now === undefined) return { data: empty, seen: undefined };
        try {
          return { data: { ...parseStore(now), scope }, seen: now };
        } catch {
          const aside = `${file}.corrupt-${Date.now()}`;
          renameSync(file, aside);
          warn(
            `the memory store ${file} was damaged (${damage(err)}); it was moved aside to ${path.basename(aside)} and memory starts empty`,
          );
          return { data: empty, seen: undefined };
        }
      });
      return new MemoryStore(file, scope, moved.data, moved.seen, warn);
    }
  }

  get memories(): readonly MemoryEntry[] {
    return this.data.memories;
  }

  /** The embedding model the stored vectors come from, if any. */
  get embeddingModel(): string | undefined {
    return this.data.embedding?.model;
  }

  /** Memories without a vector of `model` (all of them after a change of model), other runs' included. */
  missingVectors(model: string): MemoryEntry[] {
    this.refresh();
    if (this.data.embedding?.model !== model) return [...this.data.memories];
    return this.data.memories.filter((m) => !m.vector);
  }

  /** Gives memories their vectors of `model`, dropping vectors of any other model; persists. */
  setVectors(model: string, vectors: Map<string, number[]>) {
    this.update(() => this.applyVectors(model, vectors));
  }

  private applyVectors(model: string, vectors: Map<string, number[]>) {
    const dims = vectors.values().next().value?.length ?? this.data.embedding?.dims;
    if (this.data.embedding?.model !== model) {
      for (const m of this.data.memories) {
        if (m.vector) this.pending.add(m.id);
        delete m.vector;
      }
      this.data.embedding = dims ? { model, dims } : null;
      this.embeddingChanged = true;
    }
    for (const m of this.data.memories) {
      const v = vectors.get(m.id);
      if (v) {
        m.vector = v;
        this.pending.add(m.id);
      }
    }
    this.rebuildVectors();
  }

  /** Adds a memory (with its vector when embeddings are in use) to the file as it is now. */
  add(entry: Omit<MemoryEntry, 'id' | 'created'>, model?: string): MemoryEntry {
    const m: MemoryEntry = { id: randomBytes(6).toString('hex'), created: new Date().toISOString(), ...entry };
    this.update(() => {
      if (m.vector && model && this.data.embedding?.model !== model) {
        this.applyVectors(model, new Map());
        this.data.embedding = { model, dims: m.vector.length };
      }
      this.data.memories.push(m);
      this.pending.add(m.id);
      insert(this.textIndex, { id: m.id, text: m.text });
      if (m.vector && this.vectorIndex && m.vector.length === this.data.embedding?.dims)
        insert(this.vectorIndex, { id: m.id, vector: m.vector });
      else if (m.vector) this.rebuildVectors();
    });
    return m;
  }

  /**
   * Takes in what other runs wrote to the file since this store last read or wrote it (no lock:
   * the file is only ever replaced whole). A file that does not read as a store is left for the
   * next write to deal with.
   */
  refresh() {
    const text = readText(this.file);
    if (text === this.seen) return;
    let disk: StoreFile | null = null;
    if (text !== undefined) {
      try {
        disk = parseStore(text);
      } catch {
        return;
      }
    }
    this.merge(disk);
    this.seen = text;
  }

  /**
   * A change as a read-merge-write under the file's lock: the file as it is now (other runs'
   * memories included), then `change`, then the whole written atomically.
   */
  private update(change: () => void) {
    withFileLockSync(this.file, () => {
      let text = readText(this.file);
      if (text !== this.seen) {
        let disk: StoreFile | null = null;
        let damaged = false;
        if (text !== undefined) {
          try {
            disk = parseStore(text);
          } catch (err) {
            damaged = true;
            const aside = `${this.file}.corrupt-${Date.now()}`;
            renameSync(this.file, aside);
            text = undefined;
            this.warn(
              `the memory store ${this.file} was damaged (${damage(err)}); it was moved aside to ${path.basename(aside)} and rewritten from this run's copy`,
            );
          }
        }
        // A damaged file: this run's copy (the last good state it saw) is the base instead.
        if (!damaged) this.merge(disk);
        this.seen = text;
      }
      change();
      if (!this.pending.size && !this.embeddingChanged && text !== undefined) return;
      const out = `${JSON.stringify(this.data)}\n`;
      writeFileAtomic(this.file, out, { mode: 0o600 });
      this.seen = out;
      this.pending.clear();
      this.embeddingChanged = false;
    });
  }

  /**
   * The file's memories with this store's unwritten ones (by id) merged in: its own changes win
   * for the memories it changed; what the file has that this store did not change is the file's.
   * Vectors are kept only under the one embedding model the result records.
   */
  private merge(disk: StoreFile | null) {
    const mine = new Map(this.data.memories.filter((m) => this.pending.has(m.id)).map((m) => [m.id, m]));
    const ours = this.data.embedding;
    const theirs = disk?.embedding ?? null;
    const embedding = this.embeddingChanged ? ours : (theirs ?? ours);
    const keep = (m: MemoryEntry, under: StoreFile['embedding']): MemoryEntry => {
      const fits = !!m.vector && !!embedding && under?.model === embedding.model && m.vector.length === embedding.dims;
      if (fits || !m.vector) return m;
      const { vector: _dropped, ...rest } = m;
      return rest;
    };
    const memories: MemoryEntry[] = [];
    for (const m of disk?.memories ?? []) {
      const own = mine.get(m.id);
      memories.push(own ? keep(own, ours) : keep(m, theirs));
      mine.delete(m.id);
    }
    for (const m of mine.values()) memories.push(keep(m, ours));
    this.data = { version: 1, scope: this.scope, embedding, memories };
    this.reindex();
  }

  /** Best memories by cosine similarity to any of the query vectors, at least `threshold`. */
  searchVectors(queries: number[][], k: number, threshold: number): Retrieved[] {
    const index = this.vectorIndex;
    if (!index) return [];
    const best = new Map<string, number>();
    for (const q of queries) {
      const r = search(index, {
        mode: 'vector',
        vector: { value: q, property: 'vector' },
        similarity: threshold,
        limit: k,
        includeVectors: false,
      }) as { hits: { id: string; score: number }[] };
      for (const h of r.hits) best.set(h.id, Math.max(best.get(h.id) ?? 0, h.score));
    }
    return this.ranked(best, k);
  }

  /**
   * Lexical retrieval: BM25 candidates for each query part, scored by how much of the memory's
   * content words the part covers (0–1, comparable with the threshold), at least `threshold`.
   */
  searchLexical(queries: string[], k: number, threshold: number): Retrieved[] {
    const best = new Map<string, number>();
    const byId = new Map(this.data.memories.map((m) => [m.id, m]));
    for (const q of queries) {
      const words = contentWords(q);
      if (!words.size) continue;
      const r = search(this.textIndex, { term: [...words].join(' '), properties: ['text'], limit: 50 }) as {
        hits: { id: string }[];
      };
      for (const h of r.hits) {
        const m = byId.get(h.id);
        if (!m) continue;
        const s = lexicalCoverage(words, this.wordsOf(m));
        if (s >= threshold) best.set(h.id, Math.max(best.get(h.id) ?? 0, s));
      }
    }
    return this.ranked(best, k);
  }

  /**
   * The stored memory most like a new one: by cosine with a vector, else lexically (Dice). What
   * other runs saved to the file meanwhile counts too.
   */
  nearest(text: string, vector?: number[]): Retrieved | undefined {
    this.refresh();
    let top: Retrieved | undefined;
    const words = contentWords(text);
    for (const m of this.data.memories) {
      const s = vector && m.vector ? cosine(vector, m.vector) : lexicalLikeness(words, this.wordsOf(m));
      if (!top || s > top.similarity) top = { id: m.id, text: m.text, similarity: round3(s) };
    }
    return top;
  }

  private wordsOf(m: MemoryEntry): Set<string> {
    let w = this.words.get(m.id);
    if (!w) {
      w = contentWords(m.text);
      this.words.set(m.id, w);
    }
    return w;
  }

  private ranked(best: Map<string, number>, k: number): Retrieved[] {
    const byId = new Map(this.data.memories.map((m) => [m.id, m]));
    return [...best.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .flatMap(([id, s]) => {
        const m = byId.get(id);
        return m ? [{ id, text: m.text, similarity: round3(s) }] : [];
      });
  }

  private reindex() {
    this.textIndex = create({ schema: { text: 'string' } as const });
    for (const m of this.data.memories) insert(this.textIndex, { id: m.id, text: m.text });
    this.rebuildVectors();
  }

  private rebuildVectors() {
    const dims = this.data.embedding?.dims;
    const withVectors = this.data.memories.filter((m) => m.vector && m.vector.length === dims);
    if (!dims || !withVectors.length) {
      this.vectorIndex = undefined;
      return;
    }
    const index = create({ schema: { vector: `vector[${dims}]` } as const });
    for (const m of withVectors) insert(index, { id: m.id, vector: m.vector! });
    this.vectorIndex = index;
  }
}

function round3(n: number) {
  return Math.round(n * 1000) / 1000;
}

/** Words too common to say what a memory is about. Negations stay: they change its meaning. */
const STOPWORDS = new Set(
  'a an the and or but if then so of to in on at by for with from into onto as is are was were be been being it its this that these those there here i you he she we they me him her us them my your his our their what which who whom whose when where why how do does did done have has had having can could should would will shall may might must also just very than too about again once am'.split(
    ' ',
  ),
);
