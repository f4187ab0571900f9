import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../core/errors/patchbay-error.ts';
import type { ChatMessage } from '../../../core/protocols/openai/request-schemas.ts';
import { mapMessages } from './through-neutral.ts';
import { mapToolCallId } from '../../../core/providers/anthropic/map-tool-call-id.ts';

const map = (messages: unknown[]) => mapMessages(messages as ChatMessage[]);
const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });

function refusal(messages: unknown[]): InvalidRequestError {
  try {
    map(messages);
  } catch (error) {
    if (error instanceof InvalidRequestError) return error;
    throw error;
  }
  throw new Error('expected an InvalidRequestError');
}

describe('mapMessages: system prompts', () => {
  it('hoists one system message into a string', () => {
    expect(map([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }])).toEqual({ system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] });
  });

  it('hoists system and developer messages from anywhere, in order, as text blocks; the turns around them merge', () => {
    const mapped = map([
      { role: 'developer', content: 'Rule one.' },
      { role: 'user', content: 'Hi' },
      { role: 'system', content: [{ type: 'text', text: 'Now answer in French.' }] },
      { role: 'user', content: 'How are you?' },
    ]);
    expect(mapped).toEqual({
      system: [
        { type: 'text', text: 'Rule one.' },
        { type: 'text', text: 'Now answer in French.' },
      ],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'text', text: 'How are you?' }] }],
    });
  });

  it('keeps cache_control on system and user text parts, and drops empty system text', () => {
    const mapped = map([
      { role: 'system', content: [{ type: 'text', text: 'Long context', cache_control: { type: 'ephemeral' } }, { type: 'text', text: '' }] },
      { role: 'user', content: [{ type: 'text', text: 'Q', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
    ]);
    expect(mapped.system).toEqual([{ type: 'text', text: 'Long context', cache_control: { type: 'ephemeral' } }]);
    expect(mapped.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Q', cache_control: { type: 'ephemeral', ttl: '1h' } }] }]);
  });

  it('refuses a conversation of system messages only', () => {
    expect(refusal([{ role: 'system', content: 'Be brief.' }]).param).toBe('messages');
  });
});

describe('mapMessages: tools', () => {
  const history = [
    { role: 'user', content: 'Weather in Paris and Rome?' },
    { role: 'assistant', content: 'Checking.', tool_calls: [call('call_1', 'get_weather', '{"city":"Paris"}'), call('call_2', 'get_weather', '{"city":"Rome"}')] },
    { role: 'tool', tool_call_id: 'call_1', content: '18C' },
    { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '24C' }] },
    { role: 'user', content: 'Thanks. Which is warmer?' },
  ];

  it('turns tool_calls into tool_use blocks after the text, and merges consecutive tool messages (and the user text after them) into one user turn, tool_results first', () => {
    expect(map(history).messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '18C' },
          // A lone text part is sent as a string, the same content for Anthropic.
          { type: 'tool_result', tool_use_id: 'call_2', content: '24C' },
          { type: 'text', text: 'Thanks. Which is warmer?' },
        ],
      },
    ]);
  });

  it('puts tool_results first even when a user message came between the call and the results', () => {
    const mapped = map([
      { role: 'user', content: 'Go' },
      { role: 'assistant', content: null, tool_calls: [call('call_1', 'f', '{}')] },
      { role: 'user', content: 'Hurry.' },
      { role: 'tool', tool_call_id: 'call_1', content: 'done' },
    ]);
    expect(mapped.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'done' }, { type: 'text', text: 'Hurry.' }] });
  });

  it('rewrites ids Anthropic would refuse the same way in tool_use and tool_result, and keeps valid ids', () => {
    const foreign = 'functions.get_weather:0';
    const mapped = map([
      { role: 'user', content: 'Go' },
      { role: 'assistant', content: '', tool_calls: [call(foreign, 'get_weather', '{"city":"Oslo"}'), call('toolu_01D7FLrfh4GYq7yT1ULFeyMV', 'get_weather', '{}')] },
      { role: 'tool', tool_call_id: foreign, content: '3C' },
      { role: 'tool', tool_call_id: 'toolu_01D7FLrfh4GYq7yT1ULFeyMV', content: '' },
    ]);
    const [first, second] = mapped.messages[1].content as { id: string }[];
    expect(first.id).toMatch(/^functions_get_weather_0_[0-9a-f]{12}$/);
    expect(second.id).toBe('toolu_01D7FLrfh4GYq7yT1ULFeyMV');
    // An empty result is sent without content; an empty assistant text without a block.
    expect(mapped.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: first.id, content: '3C' },
      { type: 'tool_result', tool_use_id: 'toolu_01D7FLrfh4GYq7yT1ULFeyMV' },
    ]);
  });

  it('maps ids deterministically and keeps ids that differ only in a replaced character apart', () => {
    expect(mapToolCallId('call.1')).toBe(mapToolCallId('call.1'));
    expect(mapToolCallId('call.1')).not.toBe(mapToolCallId('call:1'));
    expect(mapToolCallId('call.1')).not.toBe('call_1');
    expect(mapToolCallId('call_1')).toBe('call_1');
  });

  it.each([
    ['empty arguments', '', {}],
    ['whitespace arguments', '  ', {}],
    ['nested arguments', '{"a":{"b":[1,2]}}', { a: { b: [1, 2] } }],
  ])('parses %s into the input object', (_name, args, input) => {
    const mapped = map([{ role: 'user', content: 'Go' }, { role: 'assistant', content: null, tool_calls: [call('c', 'f', args)] }]);
    expect(mapped.messages[1].content).toEqual([{ type: 'tool_use', id: 'c', name: 'f', input }]);
  });

  it.each([
    ['invalid JSON', '{"city": "Par'],
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"Paris"'],
  ])('refuses %s as arguments, naming the field', (_name, args) => {
    const error = refusal([{ role: 'user', content: 'Go' }, { role: 'assistant', content: null, tool_calls: [call('a', 'f', '{}'), call('b', 'f', args)] }]);
    expect(error.param).toBe('messages[1].tool_calls[1].function.arguments');
  });
});

describe('mapMessages: turns and content', () => {
  it('merges consecutive same-role turns and drops message names', () => {
    expect(map([{ role: 'user', content: 'a', name: 'alice' }, { role: 'user', content: 'b' }, { role: 'assistant', content: 'c' }, { role: 'assistant', content: 'd' }]).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'c' }, { type: 'text', text: 'd' }] },
    ]);
  });

  it('trims trailing whitespace from a final assistant prefill, and drops it when nothing is left', () => {
    expect(map([{ role: 'user', content: 'Q' }, { role: 'assistant', content: 'The answer is ' }]).messages[1]).toEqual({ role: 'assistant', content: 'The answer is' });
    expect(map([{ role: 'user', content: 'Q' }, { role: 'assistant', content: '  \n' }]).messages).toEqual([{ role: 'user', content: 'Q' }]);
  });

  it('maps image parts: data URLs to base64 sources, http(s) URLs to url sources', () => {
    const mapped = map([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
          { type: 'image_url', image_url: { url: 'data:image/jpg;base64,/9j/4AAQ' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
    expect(mapped.messages[0].content).toEqual([
      { type: 'text', text: 'Compare' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it.each([
    ['an SVG data URL', 'data:image/svg+xml;base64,PHN2Zz4=', 'invalid_image_format'],
    ['a data URL that is not base64', 'data:image/png,rawbytes', 'invalid_image_url'],
    ['a file: URL', 'file:///etc/passwd', 'invalid_image_url'],
  ])('refuses %s, naming the part', (_name, url, code) => {
    const error = refusal([{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url } }] }]);
    expect(error).toMatchObject({ param: 'messages[0].content[1].image_url.url', code });
  });

  it('maps an inline PDF file part to a document block and refuses audio and file ids', () => {
    const pdf = map([{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } }] }]);
    expect(pdf.messages[0].content).toEqual([{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } }]);
    expect(refusal([{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAA', format: 'wav' } }] }]).param).toBe('messages[0].content[0]');
    expect(refusal([{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }]).param).toBe('messages[0].content[0].file');
  });

  it('keeps assistant refusal parts as text and refuses images in assistant messages', () => {
    expect(map([{ role: 'user', content: 'Q' }, { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot help.' }] }, { role: 'user', content: 'OK' }]).messages[1]).toEqual({
      role: 'assistant',
      content: 'I cannot help.',
    });
    expect(refusal([{ role: 'user', content: 'Q' }, { role: 'assistant', content: [{ type: 'image_url', image_url: { url: 'https://e.com/a.png' } }] }]).param).toBe('messages[1].content');
  });
});
