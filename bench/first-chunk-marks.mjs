// Preloaded with `node --import` into the floor or Patchbay by bench/first-chunk-trace.ts: the
// in-process timestamps of a stream's way to its first write. The code under trace calls
// globalThis.__pbMark?.(step) at each step (a patch applied only for the measurement, never in a
// build); 'in' starts a request, 'written' ends it and records the time between each step and the
// one before. Concurrency 1 only (one request at a time). SIGUSR2 writes the samples to
// FIRST_CHUNK_MARKS_FILE and starts over.
import { writeFileSync } from 'node:fs';

let marks = [];
let samples = new Map();
globalThis.__pbMark = (step) => {
  const now = performance.now();
  if (step === 'in') marks = [];
  else if (marks.length === 0) return;
  marks.push(step, now);
  if (step !== 'written') return;
  for (let i = 2; i < marks.length; i += 2) {
    const name = `${marks[i - 2]} -> ${marks[i]}`;
    let list = samples.get(name);
    if (!list) samples.set(name, (list = []));
    list.push(marks[i + 1] - marks[i - 1]);
  }
  let total = samples.get('TOTAL');
  if (!total) samples.set('TOTAL', (total = []));
  total.push(now - marks[1]);
  marks = [];
};
process.on('SIGUSR2', () => {
  writeFileSync(process.env.FIRST_CHUNK_MARKS_FILE, JSON.stringify(Object.fromEntries(samples)));
  samples = new Map();
});
