/** The cursor is opaque to clients: the last row's ts and id, so rows with equal ts page correctly. */
export function encodeCursor(ts: number, id: number): string {
  return Buffer.from(`${ts}.${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { ts: number; id: number } | null {
  const match = /^(\d+)\.(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  return match ? { ts: Number(match[1]), id: Number(match[2]) } : null;
}
