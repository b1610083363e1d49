import pytest

from fizz.fizzbuzz import fizzbuzz


def test_sequence() -> None:
    assert fizzbuzz(15) == ["1", "2", "Fizz", "4", "Buzz", "Fizz", "7", "8", "Fizz", "Buzz",
                            "11", "Fizz", "13", "14", "FizzBuzz"]


def test_zero_and_negative() -> None:
    assert fizzbuzz(0) == []
    with pytest.raises(ValueError):
        fizzbuzz(-1)


def test_thirty() -> None:
    assert fizzbuzz(30)[29] == "FizzBuzz"
    assert len(fizzbuzz(100)) == 100
