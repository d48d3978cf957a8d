from ledger.services import accounts
from ledger.web import views  # a service reaching up into the web layer

__all__ = ["accounts", "views"]
