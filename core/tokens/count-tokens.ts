let tokenizer: Promise<{ countTokens: (text: string) => number }> | undefined;

/**
 * Exact token count with gpt-tokenizer (OpenAI's o200k encoding). The tokenizer's tables are
 * large, so they load on first use only: start-up and the common request never pay for them.
 */
export async function countTokens(text: string): Promise<number> {
  tokenizer ??= import('gpt-tokenizer');
  return (await tokenizer).countTokens(text);
}
