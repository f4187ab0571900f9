/**
 * The origin a provider secret is bound to: scheme, host and port (the default port written out),
 * so `https://api.openai.com/v1` and `https://api.openai.com:443/v2` are one origin and
 * `http://elsewhere/v1` reads `http://elsewhere:80` in messages. A base URL that does not parse
 * gets its own text as origin, which matches nothing else.
 */
export function secretOrigin(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return baseUrl;
  }
  const port = url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
  return `${url.protocol}//${url.hostname}${port ? `:${port}` : ''}`;
}
