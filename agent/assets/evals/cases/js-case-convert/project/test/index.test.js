'use strict';
const test = require('node:test');
const assert = require('node:assert');

test('the package loads', () => {
  assert.deepStrictEqual(typeof require('../src/index.js'), 'object');
});
