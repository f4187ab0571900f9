import { describe, expect, it } from 'vitest';
import { toCsv } from '../../core/management/to-csv.ts';

/** The data rows of a CSV, as arrays of raw fields (the test rows hold no quotes or commas inside a quoted field except where noted). */
function cells(csv: string): string[] {
  return csv.trim().split('\r\n')[1].split(',');
}

describe('toCsv', () => {
  it('neutralises cells a spreadsheet would run as a formula (OWASP CSV injection)', () => {
    const csv = toCsv([{ a: '=HYPERLINK("http://evil","x")', b: '+1+cmd|x', c: '-2+3', d: '@SUM(A1)', e: '\tx', f: '\rx' }]);
    const [header, row] = csv.split('\r\n');
    expect(header).toBe('a,b,c,d,e,f');
    expect(row).toBe(`"'=HYPERLINK(""http://evil"",""x"")",'+1+cmd|x,'-2+3,'@SUM(A1),'\tx,"'\rx"`);
  });

  it('keeps numbers numbers, negative ones included, whether stored as numbers or as numeric text', () => {
    expect(cells(toCsv([{ a: -0.5, b: '-0.5', c: '+3', d: '-1e-7', e: 0, f: 42 }]))).toEqual(['-0.5', '-0.5', '+3', '-1e-7', '0', '42']);
  });

  it('leaves ordinary text, empty cells and JSON cells as they were, quoting where RFC 4180 needs it', () => {
    expect(toCsv([{ a: 'openai/gpt-4o', b: null, c: [{ x: 1 }], d: 'a,b' }])).toBe('a,b,c,d\r\nopenai/gpt-4o,,"[{""x"":1}]","a,b"\r\n');
  });
});
