from ledger.refunds.reverse import undo


def charge(amount: int) -> int:
    return amount - undo(0)
