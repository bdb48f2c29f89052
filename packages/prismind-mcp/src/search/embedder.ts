import type { Logger } from '@mcp-workbench/core/engine';

export interface EmbedderOptions {
  /** An OpenAI-compatible endpoint: the full `…/v1/embeddings` URL, or its base (`http://host:port`, `…/v1`). */
  url: string;
  model: string;
  apiKey?: string | undefined;
  timeoutMs: number;
  logger: Logger;
}

/** How long a failed endpoint is left alone before it is tried again. */
const COOLDOWN_MS = 30_000;

export class EmbedderDown extends Error {
  override name = 'EmbedderDown';
}

export function embeddingsUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  if (/\/embeddings$/.test(trimmed)) return trimmed;
  if (/\/v1$/.test(trimmed)) return `${trimmed}/embeddings`;
  return `${trimmed}/v1/embeddings`;
}

/**
 * A client of any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, LM Studio, vLLM,
 * llama.cpp, TEI). A failure marks it down for 30 s, so a dead endpoint costs one timeout, not one per call;
 * callers then fall back to n-gram similarity.
 */
export class Embedder {
  readonly url: string;
  readonly model: string;
  private downUntil = 0;

  constructor(private readonly options: EmbedderOptions) {
    this.url = embeddingsUrl(options.url);
    this.model = options.model;
  }

  get available(): boolean {
    return Date.now() >= this.downUntil;
  }

  /**
   * POSTs to the endpoint, following a redirect only within its origin: the key and the texts never go
   * to another host because an answer said so.
   */
  private async post(body: string): Promise<Response> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    const origin = new URL(this.url).origin;
    let url = this.url;
    for (let hop = 0; ; hop++) {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body,
        redirect: 'manual',
        signal,
      });
      if (response.status < 300 || response.status >= 400) return response;
      const location = response.headers.get('location');
      const next = location ? new URL(location, url) : undefined;
      if (!next || next.origin !== origin || hop >= 3) {
        throw new Error(
          `HTTP ${response.status} redirect to ${next?.origin ?? 'nowhere'}: not followed (only redirects within ${origin} are)`,
        );
      }
      url = next.href;
    }
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    if (!this.available) throw new EmbedderDown(`${this.url} failed recently; retrying after a pause.`);
    try {
      const response = await this.post(JSON.stringify({ model: this.model, input: texts }));
      if (!response.ok) throw new Error(`HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
      const body = (await response.json()) as { data?: { embedding?: unknown; index?: unknown }[] };
      const rows = [...(body.data ?? [])].sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0));
      if (rows.length !== texts.length)
        throw new Error(`expected ${texts.length} embeddings, got ${rows.length}`);
      const vectors = rows.map((row) => {
        if (!Array.isArray(row.embedding) || row.embedding.length === 0)
          throw new Error('an embedding is not a list of numbers');
        return Float32Array.from(row.embedding as number[]);
      });
      const dim = vectors[0]!.length;
      if (vectors.some((v) => v.length !== dim))
        throw new Error('embeddings of different dimensions in one answer');
      return vectors;
    } catch (error) {
      this.downUntil = Date.now() + COOLDOWN_MS;
      const reason = error instanceof Error ? error.message : String(error);
      this.options.logger.warn(
        `Embeddings endpoint ${this.url} failed (${reason}); using n-gram similarity for 30 s.`,
      );
      throw new EmbedderDown(reason);
    }
  }
}

/** Cosine of two embeddings, clamped to [0, 1] (opposite directions mean "unrelated", not "negative"). */
export function vectorCosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  if (na === 0 || nb === 0) return 0;
  return Math.max(0, Math.min(1, dot / Math.sqrt(na * nb)));
}

export function vectorToBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

export function blobToVector(blob: Buffer): Float32Array {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}
