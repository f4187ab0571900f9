/**
 * Upstream payloads from the provider wire reference (/work/shared/reference/provider-wire.md),
 * copied as printed there; section numbers name the source of each.
 */

/** §1.4: OpenAI text stream with include_usage (recorded, vercel/ai openai-text.chunks.txt). */
export const OPENAI_TEXT_STREAM = [
  '{"id":"chatcmpl-D8Z5","object":"chat.completion.chunk","created":1770933892,"model":"gpt-4.1-nano-2025-04-14","service_tier":"default","system_fingerprint":"fp_de604bd877","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"Qup1BsQ3"}',
  '{"id":"chatcmpl-D8Z5","object":"chat.completion.chunk","created":1770933892,"model":"gpt-4.1-nano-2025-04-14","service_tier":"default","system_fingerprint":"fp_de604bd877","choices":[{"index":0,"delta":{"content":"Holiday"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"dTh"}',
  '{"id":"chatcmpl-D8Z5","object":"chat.completion.chunk","created":1770933892,"model":"gpt-4.1-nano-2025-04-14","service_tier":"default","system_fingerprint":"fp_de604bd877","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null,"obfuscation":"zap0"}',
  '{"id":"chatcmpl-D8Z5","object":"chat.completion.chunk","created":1770933892,"model":"gpt-4.1-nano-2025-04-14","service_tier":"default","system_fingerprint":"fp_de604bd877","choices":[],"usage":{"prompt_tokens":16,"completion_tokens":300,"total_tokens":316,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"obfuscation":"h9RiQLL"}',
];

/** §4.3: Groq non-stream answer (recorded, vercel/ai groq-text.json; content shortened there). */
export const GROQ_TEXT_JSON = JSON.stringify({
  id: 'chatcmpl-09d64d2a-ed1c-4473-829f-78db43f45d13',
  object: 'chat.completion',
  created: 1770770798,
  model: 'llama-3.3-70b-versatile',
  choices: [{ index: 0, message: { role: 'assistant', content: "I'd like to introduce…" }, logprobs: null, finish_reason: 'stop' }],
  usage: { queue_time: 0.041876985, prompt_tokens: 45, prompt_time: 0.001954727, completion_tokens: 607, completion_time: 2.245177008, total_tokens: 652, total_time: 2.247131735 },
  usage_breakdown: null,
  system_fingerprint: 'fp_f8b414701e',
  x_groq: { id: 'req_01kh52m3qqem4sw141xf026ehx', seed: 167346302 },
  service_tier: 'on_demand',
});

/**
 * Groq's tool-call answer without `content` (recorded, vercel/ai packages/groq/src/__fixtures__/
 * groq-tool-call.json, Feb 2026: one of the fixtures §4 was written from).
 */
export const GROQ_TOOL_CALL_JSON = JSON.stringify({
  id: 'chatcmpl-1fd017fc-60b8-44eb-a736-375b8e1bc3e7',
  object: 'chat.completion',
  created: 1770770815,
  model: 'llama-3.3-70b-versatile',
  choices: [{ index: 0, message: { role: 'assistant', tool_calls: [{ id: 'ax9fskhev', type: 'function', function: { name: 'weather', arguments: '{}' } }] }, logprobs: null, finish_reason: 'tool_calls' }],
  usage: { queue_time: 0.179481775, prompt_tokens: 218, prompt_time: 0.01182836, completion_tokens: 15, completion_time: 0.044602289, total_tokens: 233, total_time: 0.056430649 },
  usage_breakdown: null,
  system_fingerprint: 'fp_f8b414701e',
  x_groq: { id: 'req_01kh52madzem68scv0bcz3vm00', seed: 1790130236 },
  service_tier: 'on_demand',
});

/** §4.4: Groq tool-call stream, no stream_options sent (recorded, vercel/ai groq-tool-call.chunks.txt). */
export const GROQ_TOOL_STREAM = [
  '{"id":"chatcmpl-b610d559","object":"chat.completion.chunk","created":1770770843,"model":"llama-3.3-70b-versatile","system_fingerprint":"fp_f8b414701e","choices":[{"index":0,"delta":{"role":"assistant","content":null},"logprobs":null,"finish_reason":null}],"x_groq":{"id":"req_01kh52nj5yfcat8hrmvrk2j2hj","seed":689520654}}',
  '{"id":"chatcmpl-b610d559","object":"chat.completion.chunk","created":1770770843,"model":"llama-3.3-70b-versatile","system_fingerprint":"fp_f8b414701e","choices":[{"index":0,"delta":{"tool_calls":[{"id":"tk85n1k4m","type":"function","function":{"name":"weather","arguments":"{}"},"index":0}]},"logprobs":null,"finish_reason":null}]}',
  '{"id":"chatcmpl-b610d559","object":"chat.completion.chunk","created":1770770843,"model":"llama-3.3-70b-versatile","system_fingerprint":"fp_f8b414701e","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"x_groq":{"id":"req_01kh52nj5yfcat8hrmvrk2j2hj","usage":{"queue_time":0.041520249,"prompt_tokens":210,"prompt_time":0.010407901,"completion_tokens":15,"completion_time":0.046601227,"total_tokens":225,"total_time":0.057009128}},"usage":{"queue_time":0.041520249,"prompt_tokens":210,"prompt_time":0.010407901,"completion_tokens":15,"completion_time":0.046601227,"total_tokens":225,"total_time":0.057009128}}',
];

/** §4.4 + Portkey#1338: with include_usage Groq adds an OpenAI-style usage chunk (shape as OpenAI's, §1.4). */
export const GROQ_USAGE_CHUNK =
  '{"id":"chatcmpl-b610d559","object":"chat.completion.chunk","created":1770770843,"model":"llama-3.3-70b-versatile","system_fingerprint":"fp_f8b414701e","choices":[],"usage":{"prompt_tokens":210,"completion_tokens":15,"total_tokens":225}}';

/** §5.2: Together chat stream sketch (values illustrative there). */
export const TOGETHER_CHAT_STREAM = [
  '{"id":"8f1c2d3e4a5b6c7d","object":"chat.completion.chunk","created":1755000000,"model":"meta-llama/Llama-3.3-70B-Instruct-Turbo","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello","token_id":9906},"finish_reason":null,"logprobs":null}],"usage":null}',
  '{"id":"8f1c2d3e4a5b6c7d","object":"chat.completion.chunk","created":1755000000,"model":"meta-llama/Llama-3.3-70B-Instruct-Turbo","choices":[{"index":0,"delta":{"role":"assistant","content":"","token_id":128009},"finish_reason":"eos","logprobs":null}],"usage":{"prompt_tokens":12,"completion_tokens":9,"total_tokens":21}}',
];

/**
 * A Together chat answer assembled from §5.2's shapes (logprobs `{token_ids, tokens,
 * token_logprobs, top_logprobs}`, finish_reason `eos`, per-choice `seed`, `prompt`); the values
 * follow a published Together answer, with one extra alternative added at the first position.
 */
export const TOGETHER_CHAT_LOGPROBS_JSON = JSON.stringify({
  id: 'nrFCEVD-2j9zxn-934d8c409a0f43fd',
  object: 'chat.completion',
  created: 1745413268,
  model: 'meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo',
  choices: [
    {
      index: 0,
      logprobs: {
        tokens: ['New', ' York'],
        token_logprobs: [-0.39648438, -2.026558e-6],
        token_ids: [3648, 4356],
        top_logprobs: [{ New: -0.39648438, The: -1.5 }, { ' York': -2.026558e-6 }],
      },
      seed: 15158565520978651000,
      finish_reason: 'eos',
      message: { role: 'assistant', content: 'New York', tool_calls: [] },
    },
  ],
  prompt: [],
  usage: { prompt_tokens: 48, completion_tokens: 2, total_tokens: 50 },
});

/** §5.3: Together completions answer (`object: "text.completion"`, choices without index). */
export function togetherCompletion(text: string, usage: { prompt_tokens: number; completion_tokens: number }, extra: object = {}): string {
  return JSON.stringify({
    id: `cmpl-${text.length}`,
    object: 'text.completion',
    created: 1711977238,
    model: 'mistralai/Mixtral-8x7B-v0.1',
    choices: [{ text, finish_reason: 'eos', logprobs: null, seed: 42 }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    ...extra,
  });
}

/** §5.3: Together's recorded last completions chunk (mlflow#11557), written as JSON. */
export const TOGETHER_COMPLETION_LAST_CHUNK =
  '{"id":"86d8d6e06df86f61-ATH","object":"completion.chunk","created":1711977238,"choices":[{"index":0,"text":"\\":","logprobs":null,"finish_reason":"length","delta":{"token_id":1264,"content":"\\":"}}],"model":"mistralai/Mixtral-8x7B-v0.1","usage":{"prompt_tokens":17,"completion_tokens":200,"total_tokens":217}}';

/** §5.6: Together's error body (OpenAI-shaped plus a top-level id) and its legacy string form (message made up). */
export const TOGETHER_ERROR =
  '{"id":"okkMWqL-2kFHot-a023f60e9b77ff7e","error":{"message":"Unable to access non-serverless model mistralai/Mistral-Small-24B-Instruct-2501. Please visit https://api.together.ai/models/… to create and start a new dedicated endpoint for the model.","type":"invalid_request_error","param":null,"code":"model_not_available"}}';
export const TOGETHER_LEGACY_ERROR = '{"model":"mistralai/Mixtral-8x7B-v0.1","job_id":"job-1","request_id":"req-1","error":"Input validation error: inputs too long"}';

/** §4.5: Groq's 429 (no `param`). */
export const GROQ_RATE_LIMIT =
  '{"error":{"message":"Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_…` service tier `on_demand` on tokens per minute (TPM): Limit 12000, Used 4437, Requested 9854. Please try again in 11.455s.","type":"tokens","code":"rate_limit_exceeded"}}';
