// Renders every icon the desktop app and its installers need from build/icon.svg into build/icons/:
// icon-SIZE.png (16-1024), icon.ico (Windows), and tray-STATE.png / tray-STATETemplate.png
// (running, paused, failing; the Template ones are black-and-alpha for the macOS menu bar, which
// tints them, so the state is a shape there, not a colour). The output is committed, so packaging
// needs no rendering; test/electron/icons.test.ts checks it matches the SVG.
//
//   node scripts/make-icons.js
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Resvg } from '@resvg/resvg-js';
import pngToIco from 'png-to-ico';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
export const ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
const TRAY_SIZE = 32; // 16 pt at 2x; the OS scales down

/** The tray's SVG for a state: the app mark with a badge (green running, grey pause bars, red cross). */
export function traySvg(source, state, template) {
  const colour = template ? '#000' : { running: '#34d399', paused: '#9ca3af', failing: '#ef4444' }[state];
  const badge = {
    running: `<circle cx="50" cy="50" r="11" fill="${colour}"/>`,
    paused: `<rect x="41" y="40" width="6" height="20" fill="${colour}"/><rect x="53" y="40" width="6" height="20" fill="${colour}"/>`,
    failing: `<path d="M41 41 L59 59 M59 41 L41 59" stroke="${colour}" stroke-width="6" stroke-linecap="round"/>`,
  }[state];
  const body = template ? source.replace(/fill="#[0-9a-f]{6}"/g, 'fill="#000"').replace(/stroke="#[0-9a-f]{6}"/g, 'stroke="#000"') : source;
  return body.replace('</svg>', `${badge}\n</svg>`);
}

export function renderPng(svg, size) {
  return Buffer.from(new Resvg(svg, { fitTo: { mode: 'width', value: size } }).render().asPng());
}

/** Every generated file: name -> contents (the .ico is built from the PNGs). */
export async function renderIcons(source = readFileSync(join(root, 'build', 'icon.svg'), 'utf8')) {
  const files = new Map();
  for (const size of ICON_SIZES) files.set(`icon-${size}.png`, renderPng(source, size));
  files.set('icon.ico', await pngToIco([16, 24, 32, 48, 64, 128, 256].map((size) => files.get(`icon-${size}.png`))));
  for (const state of ['running', 'paused', 'failing']) {
    files.set(`tray-${state}.png`, renderPng(traySvg(source, state, false), TRAY_SIZE));
    files.set(`tray-${state}Template.png`, renderPng(traySvg(source, state, true), TRAY_SIZE));
  }
  return files;
}

if (process.argv[1] && process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = join(root, 'build', 'icons');
  mkdirSync(out, { recursive: true });
  for (const [name, data] of await renderIcons()) writeFileSync(join(out, name), data);
  process.stdout.write(`Icons written to ${out}\n`);
}
