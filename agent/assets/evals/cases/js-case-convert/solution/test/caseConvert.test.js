'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { toCamel, toSnake } = require('../src/caseConvert.js');

test('round trip', () => {
  assert.strictEqual(toSnake(toCamel('hello_world')), 'hello_world');
});
