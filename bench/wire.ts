// What the bench upstream answers and what the load generator expects back: one place, so a
// gateway that changes an answer is caught.

export const CHAT_CONTENT = 'Patchbay bench reply: the quick brown fox jumps over the lazy dog.';
export const EMBEDDING_DIMENSIONS = 1536;

/** The embedding's i-th value: a fixed pattern with realistic digits (about 10 characters each in JSON). */
export function embeddingValue(i: number): number {
  return Math.round(Math.sin(i * 0.7 + 0.3) * 1e7) / 1e8;
}

/** The content of the i-th stream chunk. */
export function streamPiece(i: number): string {
  return `tok${i} `;
}

export function streamText(chunks: number): string {
  let text = '';
  for (let i = 0; i < chunks; i++) text += streamPiece(i);
  return text;
}

export function chatBody(model: string, stream = false): string {
  return JSON.stringify({
    model,
    messages: [
      { role: 'system', content: 'You are the benchmark. Answer briefly.' },
      { role: 'user', content: 'Say the bench sentence about the fox.' },
    ],
    max_tokens: 64,
    temperature: 0,
    ...(stream ? { stream: true } : {}),
  });
}

export function embeddingBody(model: string): string {
  return JSON.stringify({ model, input: 'The quick brown fox jumps over the lazy dog.' });
}

/** Checks a chat answer; returns what is wrong, or null. */
export function checkChat(text: string): string | null {
  let parsed: { choices?: { message?: { content?: unknown } }[] };
  try {
    parsed = JSON.parse(text);
  } catch {
    return `chat answer is not JSON: ${text.slice(0, 200)}`;
  }
  const content = parsed.choices?.[0]?.message?.content;
  return content === CHAT_CONTENT ? null : `chat answer has the wrong content: ${text.slice(0, 200)}`;
}

/** Checks an embeddings answer; returns what is wrong, or null. */
export function checkEmbedding(text: string): string | null {
  let parsed: { data?: { embedding?: unknown }[] };
  try {
    parsed = JSON.parse(text);
  } catch {
    return `embeddings answer is not JSON: ${text.slice(0, 200)}`;
  }
  const embedding = parsed.data?.[0]?.embedding;
  if (!Array.isArray(embedding) || embedding.length !== EMBEDDING_DIMENSIONS) return `embeddings answer has no ${EMBEDDING_DIMENSIONS}-float vector: ${text.slice(0, 200)}`;
  if (embedding[0] !== embeddingValue(0) || embedding[EMBEDDING_DIMENSIONS - 1] !== embeddingValue(EMBEDDING_DIMENSIONS - 1)) return 'embeddings answer has the wrong values';
  return null;
}
