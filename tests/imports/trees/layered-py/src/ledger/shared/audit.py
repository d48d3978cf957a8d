from ledger.services.statements import accounts  # an audit helper that pulls in a service


def record(event: str, amount: int) -> None:
    print(event, amount, accounts.__name__)
