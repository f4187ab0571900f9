import { readFileSync } from 'node:fs';

/** A fenced code block of a doc, marked for a test with `<!-- MARKER: NAME -->` on the line before its fence. */
export interface DocsBlock {
  name: string;
  /** The fence's info string (sh, json, ini, caddyfile). */
  lang: string;
  text: string;
  /** 1-based line of the fence, for messages. */
  line: number;
}

/**
 * The blocks of a Markdown file marked for a test, in order, so a test runs the commands the docs
 * show, not a copy of them that drifts. The marker is an HTML comment, invisible where the docs are
 * read. A marker not followed by a fence is an error, not a skipped block.
 */
export function readDocsBlocks(path: string, marker: string): DocsBlock[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks: DocsBlock[] = [];
  const pattern = new RegExp(`^<!--\\s*${marker}:\\s*([\\w.-]+)\\s*-->\\s*$`);
  for (let i = 0; i < lines.length; i++) {
    const match = pattern.exec(lines[i]);
    if (!match) continue;
    const fence = /^(`{3,})(\S*)/.exec(lines[i + 1] ?? '');
    if (!fence) throw new Error(`${path}:${i + 1}: the marker "${match[1]}" is not followed by a fenced code block.`);
    const end = lines.findIndex((line, index) => index > i + 1 && line.startsWith(fence[1]) && line.trim() === fence[1]);
    if (end === -1) throw new Error(`${path}:${i + 2}: the block "${match[1]}" has no closing fence.`);
    blocks.push({ name: match[1], lang: fence[2], text: `${lines.slice(i + 2, end).join('\n')}\n`, line: i + 2 });
    i = end;
  }
  return blocks;
}

/** The one block of that name (an error naming the file when there is none, or several). */
export function docsBlock(blocks: DocsBlock[], name: string, path = 'the docs'): DocsBlock {
  const found = blocks.filter((block) => block.name === name);
  if (found.length !== 1) throw new Error(`${path} has ${found.length} blocks marked "${name}"; the test runs exactly one.`);
  return found[0];
}

/** Replaces each key of `map` by its value throughout `text`, longest keys first (so "10.0.0.11:8790" goes before "10.0.0.11"). */
export function substitute(text: string, map: Record<string, string>): string {
  const keys = Object.keys(map).sort((a, b) => b.length - a.length);
  if (keys.length === 0) return text;
  const pattern = new RegExp(keys.map((key) => key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return text.replace(pattern, (found) => map[found]);
}
