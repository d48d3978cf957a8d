from ledger.shared.money import cents
from ledger.core import balance


def limit() -> int:
    return balance.apply(cents(100))
