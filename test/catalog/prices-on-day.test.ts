import { describe, expect, it } from 'vitest';
import { loadCatalog, readShippedCatalog } from '../../core/catalog/load-catalog.ts';
import { priceDay, pricesOnDay } from '../../core/catalog/prices-on-day.ts';

const endpoint = {
  inputPrice: 0.75,
  outputPrice: 3.75,
  cacheReadPrice: 0.075,
  priceTiers: [{ above: 200000, inputPrice: 1.5 }],
  laterPrices: [
    { from: '2027-01-01', inputPrice: 1.5, outputPrice: 7.5, cacheReadPrice: 0.15 },
    { from: '2027-06-01', inputPrice: 1, outputPrice: 5 },
  ],
};

describe('prices on a day (a change the price table announces)', () => {
  it("keeps the entry's own prices before the first change day, and takes each change from its day on, whole", () => {
    expect(pricesOnDay(endpoint, '2026-12-31')).toBe(endpoint);
    expect(pricesOnDay(endpoint, '2027-01-01')).toMatchObject({ inputPrice: 1.5, outputPrice: 7.5, cacheReadPrice: 0.15, priceTiers: undefined, laterPrices: [endpoint.laterPrices[1]] });
    // The later change names no cache price: none is kept from before (cache reads are then priced as input).
    expect(pricesOnDay(endpoint, '2027-07-15')).toMatchObject({ inputPrice: 1, outputPrice: 5, cacheReadPrice: undefined, priceTiers: undefined, laterPrices: undefined });
  });

  it('dates the day in UTC, as the table does', () => {
    expect(priceDay(new Date('2026-12-31T23:59:59-05:00'))).toBe('2027-01-01');
  });

  it("the shipped catalog loaded after a change day holds that day's prices (Gemini 3.6 Flash doubles on 2027-01-01)", () => {
    const today = loadCatalog(new Map(), readShippedCatalog(), new Map(), new Date('2026-11-29T12:00:00Z')).endpoints.get('google/gemini-3.6-flash')!;
    const later = loadCatalog(new Map(), readShippedCatalog(), new Map(), new Date('2027-01-02T12:00:00Z')).endpoints.get('google/gemini-3.6-flash')!;
    expect([today.inputPrice, today.outputPrice]).toEqual([0.75, 3.75]);
    expect([later.inputPrice, later.outputPrice, later.cacheReadPrice]).toEqual([1.5, 7.5, 0.15]);
  });
});
