'use strict';

function check(text) {
  if (typeof text !== 'string') throw new TypeError('a string is required');
}

function toCamel(text) {
  check(text);
  const words = text.split('_').filter(Boolean);
  return words
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0].toUpperCase() + w.slice(1).toLowerCase()))
    .join('');
}

function toSnake(text) {
  check(text);
  return text
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
}

module.exports = { toCamel, toSnake };
