'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { range } = require('../src/range.js');

test('basic', () => {
  assert.deepStrictEqual(range(3), [0, 1, 2]);
});
