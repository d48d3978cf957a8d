from ledger.web.views import create  # ignored in the contract: a known shortcut


def cents(amount: int) -> int:
    return amount * 100 if create else amount
