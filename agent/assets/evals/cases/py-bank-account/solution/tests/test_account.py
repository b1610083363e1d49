from bank.account import Account


def test_deposit() -> None:
    account = Account("ada")
    account.deposit(5)
    assert account.balance == 5
