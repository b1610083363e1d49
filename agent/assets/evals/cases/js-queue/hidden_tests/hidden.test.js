'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { Queue } = require('../src/queue.js');

test('first in, first out', () => {
  const q = new Queue();
  ['a', 'b', 'c'].forEach((x) => q.enqueue(x));
  assert.strictEqual(q.size, 3);
  assert.strictEqual(q.peek(), 'a');
  assert.deepStrictEqual([q.dequeue(), q.dequeue(), q.dequeue()], ['a', 'b', 'c']);
  assert.strictEqual(q.size, 0);
});

test('empty errors', () => {
  const q = new Queue();
  assert.throws(() => q.dequeue(), /empty/);
  assert.throws(() => q.peek(), /empty/);
});

test('undefined is an item, and many items are fast', () => {
  const q = new Queue();
  q.enqueue(undefined);
  assert.strictEqual(q.size, 1);
  assert.strictEqual(q.dequeue(), undefined);
  for (let i = 0; i < 200000; i++) q.enqueue(i);
  let sum = 0;
  while (q.size) sum += q.dequeue();
  assert.strictEqual(sum, 19999900000);
});
