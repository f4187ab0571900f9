import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { ChatMessage } from '../../protocols/openai/request-schemas.ts';
import type { GeminiPart } from './gemini-wire.ts';

type ContentPart = Exclude<Extract<ChatMessage, { role: 'user' }>['content'], string>[number];

const DATA_URL = /^data:([^;,]+)((?:;[^;,]+)*);base64,(.*)$/s;

/**
 * Files the Gemini API itself hosts (uploaded through its Files API): what `fileData.fileUri` is
 * documented for. Whether Gemini fetches arbitrary web URLs depends on model and date, and
 * downloading them here would make the router an open fetcher with its own timeouts, so other
 * http(s) URLs are refused with the parameter's name; callers send such images as data URLs.
 */
const GOOGLE_FILE_URI = /^https:\/\/generativelanguage\.googleapis\.com\/v1(beta)?\/files\/[A-Za-z0-9_-]+$/;

const AUDIO_MIME: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mp3' };

/** OpenAI content (a string or parts) to Gemini parts; `param` names the content for errors. */
export function mapContentParts(content: string | ContentPart[] | null | undefined, param: string): GeminiPart[] {
  if (content == null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  const parts: GeminiPart[] = [];
  content.forEach((part, index) => {
    const at = `${param}[${index}]`;
    switch (part.type) {
      case 'text':
        if (part.text !== '') parts.push({ text: part.text });
        break;
      case 'refusal':
        if (part.refusal !== '') parts.push({ text: part.refusal });
        break;
      case 'image_url':
        parts.push(mapUrl(part.image_url.url, `${at}.image_url.url`));
        break;
      case 'input_audio': {
        const mimeType = AUDIO_MIME[part.input_audio.format];
        if (!mimeType) throw new InvalidRequestError(`Audio format "${part.input_audio.format}" is not supported; use wav or mp3.`, `${at}.input_audio.format`);
        parts.push({ inlineData: { mimeType, data: part.input_audio.data } });
        break;
      }
      case 'file': {
        const data = (part.file as { file_data?: unknown }).file_data;
        if (typeof data !== 'string') {
          throw new InvalidRequestError('Gemini models take files only inline: send file.file_data as a base64 data URL (file_id refers to OpenAI storage).', `${at}.file`);
        }
        parts.push(mapUrl(data, `${at}.file.file_data`));
        break;
      }
    }
  });
  return parts;
}

function mapUrl(url: string, param: string): GeminiPart {
  const data = DATA_URL.exec(url);
  if (data) return { inlineData: { mimeType: data[1], data: data[3] } };
  if (GOOGLE_FILE_URI.test(url)) return { fileData: { fileUri: url } };
  if (url.startsWith('data:')) throw new InvalidRequestError('Only base64 data URLs can be sent to Gemini models (data:<mime type>;base64,<data>).', param);
  throw new InvalidRequestError(
    'Gemini models cannot fetch images from web URLs: send the image as a base64 data URL (data:image/png;base64,...), or a Gemini Files API URI.',
    param,
  );
}
