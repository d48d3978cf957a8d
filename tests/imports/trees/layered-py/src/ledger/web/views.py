from ledger.services.accounts import open_account


def create(request: dict) -> dict:
    return open_account(request["owner"])
