import pytest

from bank.account import Account, InsufficientFunds


def test_deposit_withdraw_history() -> None:
    account = Account("ada", 10)
    account.deposit(5)
    account.withdraw(3)
    assert account.balance == 12
    assert account.history == [("deposit", 5), ("withdraw", 3)]


def test_overdraw_changes_nothing() -> None:
    account = Account("ada", 10)
    with pytest.raises(InsufficientFunds):
        account.withdraw(11)
    assert account.balance == 10 and account.history == []


@pytest.mark.parametrize("amount", [0, -1])
def test_amounts_must_be_positive(amount: int) -> None:
    with pytest.raises(ValueError):
        Account("ada", 10).deposit(amount)


def test_transfer() -> None:
    a, b = Account("a", 10), Account("b")
    a.transfer_to(b, 4)
    assert (a.balance, b.balance) == (6, 4)
    with pytest.raises(InsufficientFunds):
        a.transfer_to(b, 100)
    assert (a.balance, b.balance) == (6, 4)
    assert b.history == [("deposit", 4)]
