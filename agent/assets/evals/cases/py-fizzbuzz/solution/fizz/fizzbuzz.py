"""The FizzBuzz sequence."""


def fizzbuzz(n: int) -> list[str]:
    """The FizzBuzz strings for 1..n."""
    if n < 0:
        raise ValueError("n must not be negative")
    out = []
    for i in range(1, n + 1):
        word = ("Fizz" if i % 3 == 0 else "") + ("Buzz" if i % 5 == 0 else "")
        out.append(word or str(i))
    return out
