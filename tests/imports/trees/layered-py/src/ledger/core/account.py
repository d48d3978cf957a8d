import json

from ledger.shared import clock


class Account:
    def __init__(self, number: str, owner: str) -> None:
        self.number, self.owner, self.opened = number, owner, clock.now()

    def as_dict(self) -> dict:
        return json.loads(json.dumps(self.__dict__))
