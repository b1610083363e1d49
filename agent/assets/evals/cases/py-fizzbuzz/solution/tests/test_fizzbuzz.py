from fizz.fizzbuzz import fizzbuzz


def test_first_fifteen() -> None:
    assert fizzbuzz(15)[-1] == "FizzBuzz"
    assert fizzbuzz(5) == ["1", "2", "Fizz", "4", "Buzz"]
