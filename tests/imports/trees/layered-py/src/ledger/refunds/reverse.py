from ledger.shared.ids import new_id


def undo(amount: int) -> int:
    return amount if new_id() else 0
