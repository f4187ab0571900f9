/**
 * Control characters a terminal or a page would act on instead of showing: C0 (ESC starts a
 * terminal's escape sequences, BEL ends OSC 52 clipboard writes), DEL, C1 (U+009B is a one-byte
 * CSI), and the bidirectional overrides and isolates that reorder what is shown. Tab and the line
 * feed are text; a carriage return is text only before a line feed (CSV's line ends).
 */
const CONTROLS = /\r(?!\n)|[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text with every control character written out as an escape (`\x1b`, `\u202e`), so what a client
 * sent shows as what it is and two ids that differ only in a control character stay different.
 */
export function escapeControls(text: string): string {
  CONTROLS.lastIndex = 0;
  if (!CONTROLS.test(text)) return text;
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
