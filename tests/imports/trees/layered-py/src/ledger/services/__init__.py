"""Part of the ledger service."""
