const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** A member's value larger than this is not kept (a usage object is a few hundred bytes). */
const MAX_VALUE_BYTES = 1024 * 1024;
/** Longer keys are no key this reader looks for. */
const MAX_KEY_BYTES = 64;

/**
 * Reads chosen top-level members of one JSON object as its bytes pass by, holding nothing else:
 * how a passed-through answer is read for its `usage` (and its `error`, `status`) without keeping
 * the answer. A byte scanner, not a parser: it tracks strings (with their escapes) and nesting,
 * and keeps the raw text of a wanted member's value until the `,` or `}` that ends it, then parses
 * that alone. JSON's structural characters are ASCII and never occur inside a UTF-8 sequence, so
 * chunks may split the text anywhere. Inside a string (most of a large answer) it jumps from quote
 * to quote with indexOf.
 */
export class JsonMemberReader {
  /** The wanted members seen so far, parsed (a value that did not parse is left out). */
  readonly values: Record<string, unknown> = {};
  /** How many wanted members were read so far: a change says `values` has something new to check. */
  read = 0;
  /** The top-level object's closing brace went by. */
  complete = false;
  /** The text is not a JSON object (it starts with something else, or has more closes than opens). */
  malformed = false;
  private readonly wanted: ReadonlySet<string>;
  private started = false;
  private depth = 0;
  private inString = false;
  /** Backslashes that ended the previous chunk inside a string (an odd count escapes a quote that opens this one). */
  private carriedBackslashes = 0;
  /** At depth 1, the next string is a key. */
  private expectKey = false;
  private readingKey = false;
  private key: number[] = [];
  /** The key just read, waiting for its `:`. */
  private pendingKey: string | null = null;
  /** The member whose value is being kept, and its bytes so far. */
  private capturing: string | null = null;
  private captured: Buffer[] = [];
  private capturedBytes = 0;

  constructor(wanted: readonly string[]) {
    this.wanted = new Set(wanted);
  }

  feed(chunk: Uint8Array): void {
    if (this.complete || this.malformed) return;
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let captureFrom = 0;
    let i = 0;
    const length = bytes.length;
    while (i < length) {
      if (this.inString) {
        const quote = this.closingQuote(bytes, i);
        if (this.readingKey) this.keepKeyBytes(bytes, i, quote < 0 ? length : quote);
        if (quote < 0) {
          this.carryBackslashes(bytes, i);
          i = length;
          break;
        }
        this.inString = false;
        this.carriedBackslashes = 0;
        if (this.readingKey) {
          this.readingKey = false;
          this.pendingKey = this.key.length <= MAX_KEY_BYTES ? Buffer.from(this.key).toString('utf8') : null;
          this.key = [];
        }
        i = quote + 1;
        continue;
      }
      const b = bytes[i];
      if (!this.started) {
        if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) {
          i++;
          continue;
        }
        if (b !== OPEN_BRACE) {
          this.malformed = true;
          return;
        }
        this.started = true;
        this.depth = 1;
        this.expectKey = true;
        i++;
        continue;
      }
      if (b === QUOTE) {
        this.inString = true;
        if (this.depth === 1 && this.expectKey) {
          this.readingKey = true;
          this.expectKey = false;
          this.key = [];
        }
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
        this.depth++;
      } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        if (this.depth === 1) {
          this.endCapture(bytes, captureFrom, i);
          this.depth = 0;
          this.complete = true;
          return;
        }
        this.depth--;
      } else if (this.depth === 1) {
        if (b === COMMA) {
          this.endCapture(bytes, captureFrom, i);
          this.expectKey = true;
        } else if (b === COLON && this.pendingKey !== null) {
          if (this.wanted.has(this.pendingKey)) {
            this.capturing = this.pendingKey;
            this.captured = [];
            this.capturedBytes = 0;
            captureFrom = i + 1;
          }
          this.pendingKey = null;
        }
      }
      i++;
    }
    if (this.capturing !== null) this.keepCaptured(bytes.subarray(captureFrom));
  }

  /** The index of the quote that closes the string at `from`, or -1 when this chunk does not close it. */
  private closingQuote(bytes: Buffer, from: number): number {
    for (let at = from; ; at++) {
      const quote = bytes.indexOf(QUOTE, at);
      if (quote < 0) return -1;
      let backslashes = 0;
      let back = quote - 1;
      while (back >= from && bytes[back] === BACKSLASH) {
        backslashes++;
        back--;
      }
      if (back < from && from === 0) backslashes += this.carriedBackslashes;
      if (backslashes % 2 === 0) return quote;
      at = quote;
    }
  }

  private carryBackslashes(bytes: Buffer, from: number): void {
    let run = 0;
    for (let at = bytes.length - 1; at >= from && bytes[at] === BACKSLASH; at--) run++;
    this.carriedBackslashes = run === bytes.length - from && from === 0 ? this.carriedBackslashes + run : run;
  }

  private keepKeyBytes(bytes: Buffer, from: number, to: number): void {
    if (this.key.length > MAX_KEY_BYTES) return;
    for (let at = from; at < to && this.key.length <= MAX_KEY_BYTES; at++) this.key.push(bytes[at]);
  }

  private keepCaptured(piece: Buffer): void {
    if (this.capturing === null || piece.length === 0) return;
    this.capturedBytes += piece.length;
    if (this.capturedBytes > MAX_VALUE_BYTES) {
      this.capturing = null;
      this.captured = [];
      return;
    }
    // A copy: the chunk it came from is passed on and freed.
    this.captured.push(Buffer.from(piece));
  }

  private endCapture(bytes: Buffer, from: number, to: number): void {
    if (this.capturing === null) return;
    this.keepCaptured(bytes.subarray(from, to));
    const name = this.capturing;
    this.capturing = null;
    if (this.captured.length === 0 && this.capturedBytes === 0) return;
    try {
      this.values[name] = JSON.parse(Buffer.concat(this.captured).toString('utf8'));
      this.read++;
    } catch {
      // Not a value: left out, as a member the answer does not have.
    }
    this.captured = [];
  }
}
