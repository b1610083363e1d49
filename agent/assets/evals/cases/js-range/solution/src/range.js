'use strict';

function range(start, end, step = 1) {
  if (end === undefined) {
    end = start;
    start = 0;
  }
  for (const x of [start, end, step]) {
    if (!Number.isInteger(x)) throw new TypeError('range takes integers');
  }
  if (step === 0) throw new RangeError('step must not be 0');
  const out = [];
  for (let i = start; step > 0 ? i < end : i > end; i += step) out.push(i);
  return out;
}

module.exports = { range };
