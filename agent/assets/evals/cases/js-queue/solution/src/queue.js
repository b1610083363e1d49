'use strict';

class Queue {
  #items = new Map();
  #head = 0;
  #tail = 0;

  enqueue(item) {
    this.#items.set(this.#tail++, item);
  }

  dequeue() {
    const item = this.peek();
    this.#items.delete(this.#head++);
    return item;
  }

  peek() {
    if (this.size === 0) throw new Error('the queue is empty');
    return this.#items.get(this.#head);
  }

  get size() {
    return this.#tail - this.#head;
  }
}

module.exports = { Queue };
