// Preloaded with `node --import` into the floor or Patchbay by bench/first-chunk-trace.ts: the
// in-process timestamps of a stream's way to its first write. The code under trace calls
// globalThis.__pbMark?.(step) at each step (a patch applied only for the measurement, never in a
// build); 'in' starts a request, 'written' ends it and records the time between each step and the
// one before. Concurrency 1 only (one request at a time). SIGUSR2 writes the samples to
// FIRST_CHUNK_MARKS_FILE and starts over.
//
// The clock is process.hrtime (CLOCK_MONOTONIC, the same in every process), so a mark may carry a
// time taken in another process: `__pbMark(step, atMs)` (the patched bench upstream sends when it
// received the request, its end, and when it wrote the head, in the stream's head). Every step
// after 'dispatched' is also recorded as `dispatched => step`: its time since the dispatch returned.
import { writeFileSync } from 'node:fs';

const clock = () => Number(process.hrtime.bigint()) / 1e6;
let marks = [];
let samples = new Map();
const add = (name, value) => {
  let list = samples.get(name);
  if (!list) samples.set(name, (list = []));
  list.push(value);
};
globalThis.__pbMark = (step, at) => {
  const now = at ?? clock();
  if (step === 'in') marks = [];
  else if (marks.length === 0) return;
  marks.push(step, now);
  if (step !== 'written') return;
  let dispatched = -1;
  for (let i = 2; i < marks.length; i += 2) {
    add(`${marks[i - 2]} -> ${marks[i]}`, marks[i + 1] - marks[i - 1]);
    if (dispatched >= 0) add(`dispatched => ${marks[i]}`, marks[i + 1] - dispatched);
    if (marks[i] === 'dispatched') dispatched = marks[i + 1];
  }
  add('TOTAL', now - marks[1]);
  marks = [];
};
process.on('SIGUSR2', () => {
  writeFileSync(process.env.FIRST_CHUNK_MARKS_FILE, JSON.stringify(Object.fromEntries(samples)));
  samples = new Map();
});
