from ledger.core.account import Account
from ledger.shared.ids import new_id


def open_account(owner: str) -> dict:
    return Account(new_id(), owner).as_dict()
