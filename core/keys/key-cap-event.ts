/** A key's monthly cap crossing 80 % or 100 %, told once per key, cap, threshold and month (KeyLimiter.onCap; the live `key_cap` event). */
export interface KeyCapEvent {
  key_id: string;
  key_name: string;
  cap: 'tokens' | 'usd';
  threshold: 80 | 100;
  used: number;
  limit: number;
  /** YYYY-MM (UTC). */
  month: string;
}
