/**
 * Long-term memory as the memory agent uses it: retrieval (top-k above a similarity threshold)
 * and saving with deduplication, through embeddings from the model's own endpoint when it
 * serves them, else lexically (BM25 candidates scored by word coverage). A failed embeddings
 * call switches the rest of the run to lexical retrieval and says so once.
 */
import type { RoleCallRecord } from './model-endpoint.ts';
import type { RetrievalKind } from '../domain.ts';
import type { ModelClient } from './model-client.ts';
import { describeCallError } from './model-call-error.ts';
import type { MemoryEntry, MemoryStore, Retrieved } from './memory-store.ts';

/** What is embedded to learn whether the endpoint serves embeddings when there is nothing to search for. */
const PROBE = 'game memory';

export interface LongTermSettings {
  /** The embedding model; null asks for lexical retrieval. */
  embeddingModel: string | null;
  /** Memories per step (the paper: 3). */
  topK: number;
  /** Least similarity of a retrieved memory (the paper: 0.4). */
  threshold: number;
  /** A new memory at least this similar to a stored one is not saved (the paper: 0.8). */
  dedupe: number;
}

export const DEFAULT_LONG_TERM: LongTermSettings = {
  embeddingModel: 'text-embedding-3-small',
  topK: 3,
  threshold: 0.4,
  dedupe: 0.8,
};

export interface SaveOutcome {
  saved?: MemoryEntry;
  skipped?: { text: string; similarity: number; duplicate_of: string };
}

export class LongTermMemory {
  private kind: RetrievalKind;
  /** Why retrieval is lexical, when it is. */
  private why: string | undefined;
  private ready = false;

  /** An embeddings call has answered in this run. */
  private working = false;

  constructor(
    readonly store: MemoryStore,
    private readonly client: ModelClient,
    readonly settings: LongTermSettings,
    /** Told once when retrieval falls back to lexical, with the reason. */
    private readonly onFallback: (kind: RetrievalKind, why: string) => void,
  ) {
    this.kind = settings.embeddingModel ? 'embedding' : 'lexical';
    if (!settings.embeddingModel) this.why = 'no embedding model was given';
  }

  get retrieval(): RetrievalKind {
    return this.kind;
  }

  get fallbackReason(): string | undefined {
    return this.why;
  }

  /** Embeds stored memories that have no vector of the current model yet (saved lexically, or under another model). */
  private async prepare(signal: AbortSignal, calls?: RoleCallRecord[]) {
    if (this.ready || this.kind !== 'embedding') return;
    const model = this.settings.embeddingModel!;
    const missing = this.store.missingVectors(model);
    if (missing.length) {
      const vectors = await this.embed(
        missing.map((m) => m.text),
        signal,
        calls,
      );
      if (!vectors) return;
      this.store.setVectors(model, new Map(missing.map((m, i) => [m.id, vectors[i]!])));
    }
    this.ready = true;
  }

  /** The best memories for the query parts (each searched on its own; a memory keeps its best similarity). */
  async retrieve(parts: string[], signal: AbortSignal, calls?: RoleCallRecord[]): Promise<Retrieved[]> {
    const queries = parts.map((p) => p.trim()).filter(Boolean);
    // The run learns at its first step whether embeddings work, also when there is nothing to
    // search for yet (a first review that failed leaves no query): then a probe is embedded.
    if (!queries.length) {
      if (this.kind === 'embedding' && !this.working) await this.embed([PROBE], signal, calls);
      return [];
    }
    const { topK, threshold } = this.settings;
    await this.prepare(signal, calls);
    if (this.kind === 'embedding') {
      const vectors = await this.embed(queries, signal, calls);
      if (vectors) return this.store.searchVectors(vectors, topK, threshold);
    }
    return this.store.searchLexical(queries, topK, threshold);
  }

  /** Saves a memory unless one at least `dedupe` similar is stored already. */
  async save(
    text: string,
    origin: Pick<MemoryEntry, 'run' | 'episode' | 'step'>,
    signal: AbortSignal,
    calls?: RoleCallRecord[],
  ): Promise<SaveOutcome> {
    await this.prepare(signal, calls);
    let vector: number[] | undefined;
    if (this.kind === 'embedding') vector = (await this.embed([text], signal, calls))?.[0];
    const near = this.store.nearest(text, vector);
    if (near && near.similarity >= this.settings.dedupe)
      return { skipped: { text, similarity: near.similarity, duplicate_of: near.id } };
    const model = vector ? this.settings.embeddingModel! : undefined;
    return { saved: this.store.add({ text, ...origin, ...(vector ? { vector } : {}) }, model) };
  }

  /** Vectors for the texts, or undefined after switching to lexical retrieval because the endpoint failed. */
  private async embed(texts: string[], signal: AbortSignal, calls?: RoleCallRecord[]): Promise<number[][] | undefined> {
    try {
      const vectors = await this.client.embed(this.settings.embeddingModel!, texts, signal, calls);
      this.working = true;
      return vectors;
    } catch (err) {
      if (signal.aborted) throw err;
      this.kind = 'lexical';
      this.why = `the embeddings endpoint failed (${describeCallError(err)})`;
      this.onFallback('lexical', this.why);
      return undefined;
    }
  }
}
