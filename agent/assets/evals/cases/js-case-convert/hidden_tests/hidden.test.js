'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { toCamel, toSnake } = require('../src/caseConvert.js');

test('toCamel', () => {
  assert.strictEqual(toCamel('hello_world_again'), 'helloWorldAgain');
  assert.strictEqual(toCamel('__a__b__'), 'aB');
  assert.strictEqual(toCamel('single'), 'single');
});

test('toSnake', () => {
  assert.strictEqual(toSnake('helloWorldAgain'), 'hello_world_again');
  assert.strictEqual(toSnake('parseHTTPResponse'), 'parse_http_response');
  assert.strictEqual(toSnake('already'), 'already');
});

test('type errors', () => {
  assert.throws(() => toCamel(3), TypeError);
  assert.throws(() => toSnake(null), TypeError);
});
