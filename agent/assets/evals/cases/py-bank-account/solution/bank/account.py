"""A bank account."""


class InsufficientFunds(Exception):
    """A withdrawal above the balance."""


class Account:
    def __init__(self, owner: str, balance: int = 0) -> None:
        self.owner = owner
        self._balance = balance
        self.history: list[tuple[str, int]] = []

    @property
    def balance(self) -> int:
        return self._balance

    def deposit(self, amount: int) -> None:
        _positive(amount)
        self._balance += amount
        self.history.append(("deposit", amount))

    def withdraw(self, amount: int) -> None:
        _positive(amount)
        if amount > self._balance:
            raise InsufficientFunds(f"{amount} is more than {self._balance}")
        self._balance -= amount
        self.history.append(("withdraw", amount))

    def transfer_to(self, other: "Account", amount: int) -> None:
        self.withdraw(amount)
        other.deposit(amount)


def _positive(amount: int) -> None:
    if not isinstance(amount, int) or amount <= 0:
        raise ValueError("amount must be a positive integer")
