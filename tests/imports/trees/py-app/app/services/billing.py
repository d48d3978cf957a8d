def invoice_total(amounts: list[float]) -> float:
    return round(sum(amounts), 2)
