import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../core/config/load-config.ts';

describe('the catalog section of the config file', () => {
  it('sets where the price table comes from and how often the providers are asked for their models', () => {
    const config = parseConfig({ catalog: { url: 'https://prices.example.com/data.json', discoverEveryMinutes: 60 } }, 'config.json');
    expect(config).toMatchObject({ catalogUrl: 'https://prices.example.com/data.json', discoverEveryMs: 3_600_000 });
    expect(parseConfig({}, null)).toMatchObject({ catalogUrl: undefined, discoverEveryMs: 6 * 3_600_000 });
  });

  it('refuses a URL that is not http(s), naming the field', () => {
    expect(() => parseConfig({ catalog: { url: 'file:///etc/passwd' } }, 'config.json')).toThrow(ConfigError);
    expect(() => parseConfig({ catalog: { url: 'file:///etc/passwd' } }, 'config.json')).toThrow(/catalog\.url: must be an http\(s\) URL/);
  });
});
