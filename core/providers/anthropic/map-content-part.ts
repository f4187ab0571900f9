import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { ChatMessage } from '../../protocols/openai/request-schemas.ts';
import type { CacheControl, ContentBlockParam, DocumentBlockParam, ImageBlockParam, TextBlockParam } from './anthropic-wire-types.ts';

type UserContent = Extract<ChatMessage, { role: 'user' }>['content'];
type ContentPart = Exclude<UserContent, string>[number];

const IMAGE_MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * One OpenAI content part -> Anthropic blocks. Empty text becomes no block: Anthropic rejects
 * empty text blocks, and an empty part says nothing. `where` is the part's path in the request,
 * for errors that name the field.
 */
export function mapContentPart(part: ContentPart, where: string): ContentBlockParam[] {
  switch (part.type) {
    case 'text':
      return textBlocks(part.text, part.cache_control);
    case 'refusal':
      return textBlocks(part.refusal, undefined);
    case 'image_url':
      return [withCacheControl(mapImageUrl(part.image_url.url, `${where}.image_url.url`), part.cache_control)];
    case 'file':
      return [mapFile(part.file, `${where}.file`)];
    case 'input_audio':
      throw new InvalidRequestError('Anthropic models do not take audio input; send the audio to a model that does, or transcribe it first.', where, 'unsupported_content');
  }
}

export function textBlocks(text: string, cacheControl: unknown): TextBlockParam[] {
  if (text === '') return [];
  return [withCacheControl<TextBlockParam>({ type: 'text', text }, cacheControl)];
}

/**
 * `cache_control` is not OpenAI's, but clients that know Anthropic (and LiteLLM-style SDKs) put it
 * on content parts to mark prompt-cache breakpoints; it is kept when it has Anthropic's shape.
 */
function withCacheControl<T extends { cache_control?: CacheControl }>(block: T, cacheControl: unknown): T {
  if (!isCacheControl(cacheControl)) return block;
  return { ...block, cache_control: typeof cacheControl.ttl === 'string' ? { type: 'ephemeral', ttl: cacheControl.ttl } : { type: 'ephemeral' } };
}

function isCacheControl(value: unknown): value is { type: 'ephemeral'; ttl?: unknown } {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'ephemeral';
}

/** Data URLs become base64 sources (Anthropic wants the media type apart); http(s) URLs are fetched by Anthropic. */
export function mapImageUrl(url: string, where: string): ImageBlockParam {
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  const data = parseBase64DataUrl(url);
  if (!data) {
    throw new InvalidRequestError('Anthropic takes images as http(s) URLs or base64 data URLs (data:image/png;base64,...).', where, 'invalid_image_url');
  }
  const mediaType = data.mediaType === 'image/jpg' ? 'image/jpeg' : data.mediaType;
  if (!IMAGE_MEDIA_TYPES.has(mediaType)) {
    throw new InvalidRequestError(`Anthropic accepts JPEG, PNG, GIF and WebP images, not ${data.mediaType}.`, where, 'invalid_image_format');
  }
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data: data.data } };
}

/** OpenAI's file part carries a data URL in `file_data`; Anthropic reads PDFs as document blocks. */
function mapFile(file: Record<string, unknown>, where: string): DocumentBlockParam {
  const data = typeof file.file_data === 'string' ? parseBase64DataUrl(file.file_data) : undefined;
  if (!data || data.mediaType !== 'application/pdf') {
    throw new InvalidRequestError(
      'Anthropic reads files only as PDFs sent inline (file_data: "data:application/pdf;base64,..."); uploaded file ids and other types cannot be forwarded.',
      where,
      'unsupported_content',
    );
  }
  return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: data.data } };
}

/** Splits `data:<type>;base64,<data>` without running a regular expression over megabytes of image. */
function parseBase64DataUrl(url: string): { mediaType: string; data: string } | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma < 0) return undefined;
  const header = url.slice(5, comma).split(';');
  if (header.length < 2 || header[header.length - 1].toLowerCase() !== 'base64') return undefined;
  return { mediaType: header[0].toLowerCase(), data: url.slice(comma + 1) };
}
