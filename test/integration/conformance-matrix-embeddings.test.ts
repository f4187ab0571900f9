import { countTokens as o200kTokens } from 'gpt-tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens, embeddingFor } from '../emulators/openai-emulator.ts';
import { PROVIDERS, expectBadRequest, newUsageRows, startRig, usageRowCount, type Rig } from '../helpers/conformance-matrix.ts';

/**
 * The /v1/embeddings conformance matrix: OpenAI, Google and Together x (floats, base64 as asked,
 * the SDK's default of base64 on the wire decoded by the SDK, dimensions); Anthropic and Groq have
 * no embedding models. The emulators' vectors are embeddingFor(input, dimensions) (float32 values,
 * a shorter vector being the start of the longer one). Usage: OpenAI reports words; Gemini and
 * Together report none, so Patchbay counts the inputs with gpt-tokenizer.
 */

const INPUT = ['first text', 'second text'];
const WITH_EMBEDDINGS = PROVIDERS.filter((p) => p.embedding !== null).map((p) => ({ ...p, embedding: p.embedding! }));
const WITHOUT_EMBEDDINGS = PROVIDERS.filter((p) => p.embedding === null);

function decodeFloat32(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

describe('conformance matrix: /v1/embeddings', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.stop();
  });

  describe.each(WITH_EMBEDDINGS)('$name', (p) => {
    const { model, served, dimensions } = p.embedding;
    const tokens = INPUT.reduce((sum, text) => sum + (p.embedding.upstreamUsage ? countTokens(text) : o200kTokens(text)), 0);
    const vectors = INPUT.map((text) => embeddingFor(text, dimensions));

    async function expectOneRow(before: number): Promise<void> {
      const rows = await newUsageRows(rig.pb, before);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ endpoint: 'embeddings', status: 200, requested_model: model, provider: p.name, model: served, stream: 0, prompt_tokens: tokens, completion_tokens: 0, total_tokens: tokens });
    }

    it('float', async () => {
      const before = usageRowCount(rig.pb);
      const list = await rig.client.embeddings.create({ model, input: INPUT, encoding_format: 'float' });
      expect(list.object).toBe('list');
      expect(list.model).toEqual(expect.stringMatching(/./));
      expect(list.data).toEqual(vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })));
      expect(list.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
      await expectOneRow(before);
    });

    it('base64 when asked', async () => {
      const before = usageRowCount(rig.pb);
      const list = await rig.client.embeddings.create({ model, input: INPUT, encoding_format: 'base64' });
      const encoded = list.data.map((d) => d.embedding as unknown);
      expect(encoded).toEqual([expect.any(String), expect.any(String)]);
      expect(encoded.map((e) => decodeFloat32(e as string))).toEqual(vectors);
      expect(list.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
      await expectOneRow(before);
    });

    it('the SDK default (base64 on the wire, decoded by the SDK)', async () => {
      const before = usageRowCount(rig.pb);
      const list = await rig.client.embeddings.create({ model, input: INPUT });
      expect(list.data.map((d) => d.index)).toEqual([0, 1]);
      expect(list.data.map((d) => d.embedding)).toEqual(vectors);
      await expectOneRow(before);
    });

    it(p.embedding.shortenable ? 'dimensions: shortened vectors' : 'dimensions: refused with a 400 naming dimensions', async () => {
      const before = usageRowCount(rig.pb);
      const request = rig.client.embeddings.create({ model, input: INPUT, dimensions: 256, encoding_format: 'float' });
      if (!p.embedding.shortenable) {
        await expectBadRequest(request, 'dimensions');
        const rows = await newUsageRows(rig.pb, before);
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({ endpoint: 'embeddings', status: 400 });
        return;
      }
      const list = await request;
      expect(list.data).toEqual(INPUT.map((text, index) => ({ object: 'embedding', index, embedding: embeddingFor(text, 256) })));
      await expectOneRow(before);
    });
  });

  it.each(WITHOUT_EMBEDDINGS)('$name has no embedding models: a 400 saying so', async (p) => {
    const before = usageRowCount(rig.pb);
    const error = await rig.client.embeddings.create({ model: p.chat, input: INPUT }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, param: 'model' });
    expect((error as Error).message).toContain(p.chat);
    expect((error as Error).message).toContain('/v1/embeddings');
    const rows = await newUsageRows(rig.pb, before);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ endpoint: 'embeddings', status: 400 });
  });
});
