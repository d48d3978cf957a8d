from ledger.shared import audit


def notify() -> None:
    audit.record("refund", 0)
