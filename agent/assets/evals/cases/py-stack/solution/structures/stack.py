"""A last-in, first-out stack."""

from typing import Any


class EmptyStackError(Exception):
    """pop or peek on an empty stack."""


class Stack:
    """Items pushed last come out first."""

    def __init__(self) -> None:
        self._items: list[Any] = []

    def push(self, item: Any) -> None:
        self._items.append(item)

    def pop(self) -> Any:
        if not self._items:
            raise EmptyStackError("pop from an empty stack")
        return self._items.pop()

    def peek(self) -> Any:
        if not self._items:
            raise EmptyStackError("peek at an empty stack")
        return self._items[-1]

    def is_empty(self) -> bool:
        return not self._items

    def __len__(self) -> int:
        return len(self._items)
