'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { range } = require('../src/range.js');

test('like Python', () => {
  assert.deepStrictEqual(range(0, 5), [0, 1, 2, 3, 4]);
  assert.deepStrictEqual(range(5, 0, -2), [5, 3, 1]);
  assert.deepStrictEqual(range(3, 3), []);
  assert.deepStrictEqual(range(4), [0, 1, 2, 3]);
  assert.deepStrictEqual(range(0, 10, 3), [0, 3, 6, 9]);
  assert.deepStrictEqual(range(-2), []);
});

test('errors', () => {
  assert.throws(() => range(0, 5, 0), RangeError);
  assert.throws(() => range(0.5, 2), TypeError);
  assert.throws(() => range('a'), TypeError);
});
