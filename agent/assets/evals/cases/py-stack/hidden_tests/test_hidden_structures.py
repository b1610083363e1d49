import pytest

from structures.stack import EmptyStackError, Stack


def test_push_pop_peek() -> None:
    stack = Stack()
    assert stack.is_empty() and len(stack) == 0
    for item in ("a", "b", "c"):
        stack.push(item)
    assert len(stack) == 3
    assert stack.peek() == "c"
    assert len(stack) == 3
    assert [stack.pop(), stack.pop(), stack.pop()] == ["c", "b", "a"]
    assert stack.is_empty()


def test_empty_errors() -> None:
    assert issubclass(EmptyStackError, Exception)
    stack = Stack()
    with pytest.raises(EmptyStackError):
        stack.pop()
    with pytest.raises(EmptyStackError):
        stack.peek()


def test_none_is_an_item() -> None:
    stack = Stack()
    stack.push(None)
    assert len(stack) == 1
    assert stack.pop() is None
