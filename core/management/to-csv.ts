/**
 * Text a spreadsheet would read as a formula (or that starts with a tab or carriage return, which
 * some spreadsheets strip before looking for one), per OWASP's CSV-injection guidance.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
/** Plain numbers such as a negative cost ("-0.5") stay numbers: a spreadsheet runs nothing in them. */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A cell's text; a would-be formula gets a leading ' so a spreadsheet shows it as text instead of running it. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return FORMULA_START.test(text) && !NUMBER.test(text) ? `'${text}` : text;
}

/**
 * RFC 4180 CSV: a header from the first row's keys, fields quoted when they need it. Model names
 * and key names come from callers, so cells are neutralised against formula injection; the JSON
 * export keeps the raw values.
 */
export function toCsv(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '';
  const columns = Object.keys(rows[0]);
  const field = (value: unknown) => {
    const text = cellText(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [columns.map(field).join(','), ...rows.map((row) => columns.map((c) => field(row[c])).join(','))].join('\r\n') + '\r\n';
}
