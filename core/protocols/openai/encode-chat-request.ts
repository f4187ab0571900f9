import type { ImagePart, NeutralRequest, TextPart } from '../neutral/neutral-request.ts';
import type { ChatMessage, ChatRequest } from './request-schemas.ts';

type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/**
 * Neutral request -> OpenAI chat request (streamed, usage asked for). Tool results become `tool`
 * messages placed before the rest of their user turn, as OpenAI orders them; images in a tool
 * result, which a tool message cannot hold, follow in a user message. Reasoning and redacted
 * reasoning are left out: their signatures mean nothing to another upstream.
 */
export function encodeChatRequest(request: NeutralRequest): ChatRequest {
  const messages: ChatMessage[] = [];
  const system = request.system.map((p) => p.text).join('\n\n');
  if (system !== '') messages.push({ role: 'system', content: system });
  for (const message of request.messages) {
    if (message.role === 'system') {
      const text = message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n\n');
      if (text !== '') messages.push({ role: 'system', content: text });
      continue;
    }
    if (message.role === 'assistant') {
      const text = message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
      const calls = message.parts.flatMap((p) => (p.type === 'tool-call' ? [{ id: p.id, type: 'function' as const, function: { name: p.name, arguments: JSON.stringify(p.input ?? {}) } }] : []));
      if (text === '' && calls.length === 0) continue;
      messages.push({ role: 'assistant', content: text === '' ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      continue;
    }
    const content: ContentPart[] = [];
    const toolImages: ContentPart[] = [];
    for (const part of message.parts) {
      if (part.type === 'tool-result') {
        const text = part.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
        messages.push({ role: 'tool', tool_call_id: part.toolCallId, content: part.isError ? `Error: ${text}` : text });
        for (const image of part.content) if (image.type === 'image') toolImages.push(imagePart(image));
      } else if (part.type === 'text' || part.type === 'image') {
        content.push(contentPart(part));
      }
    }
    const userContent = [...toolImages, ...content];
    if (userContent.length === 0) continue;
    messages.push({ role: 'user', content: userContent.every((c) => c.type === 'text') ? userContent.map((c) => (c as { text: string }).text).join('') : userContent });
  }
  const chat: ChatRequest = { model: request.model, messages, stream: true, stream_options: { include_usage: true } };
  if (request.maxTokens !== undefined && request.maxTokens > 0) chat.max_tokens = request.maxTokens;
  if (request.temperature !== undefined) chat.temperature = request.temperature;
  if (request.topP !== undefined) chat.top_p = request.topP;
  if (request.stopSequences.length > 0) chat.stop = request.stopSequences;
  if (request.user !== undefined) chat.user = request.user;
  // A JSON answer: OpenAI's structured output with the schema when there is one, JSON mode without.
  const format = request.responseFormat;
  if (format) {
    chat.response_format = format.schema
      ? { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, ...(format.description ? { description: format.description } : {}) } }
      : { type: 'json_object' };
  }
  if (request.tools.length > 0 && request.toolChoice?.type !== 'none') {
    chat.tools = request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.inputSchema } }));
    const choice = request.toolChoice;
    if (choice) {
      chat.tool_choice = choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type === 'any' ? 'required' : 'auto';
      if (!choice.parallel) chat.parallel_tool_calls = false;
    }
  }
  return chat;
}

function contentPart(part: TextPart | ImagePart): ContentPart {
  return part.type === 'text' ? { type: 'text', text: part.text } : imagePart(part);
}

function imagePart(image: ImagePart): ContentPart {
  return { type: 'image_url', image_url: { url: image.url ?? `data:${image.mediaType ?? 'image/png'};base64,${image.data ?? ''}` } };
}
