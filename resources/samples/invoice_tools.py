"""Helpers for the invoicing service: totals, VAT and late-payment interest."""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

VAT_RATE = Decimal("0.21")
LATE_INTEREST_PER_DAY = Decimal("0.0005")


@dataclass
class InvoiceLine:
    description: str
    quantity: int
    unit_price: Decimal


def invoice_total(lines: list[InvoiceLine], include_vat: bool = True) -> Decimal:
    """Sum of quantity times unit price, with VAT added unless include_vat is False."""
    net = sum((line.quantity * line.unit_price for line in lines), Decimal("0"))
    total = net * (1 + VAT_RATE) if include_vat else net
    return total.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def late_payment_interest(amount: Decimal, days_late: int) -> Decimal:
    """Simple interest charged on overdue invoices: 0.05% of the amount per day late."""
    if days_late <= 0:
        return Decimal("0.00")
    return (amount * LATE_INTEREST_PER_DAY * days_late).quantize(Decimal("0.01"))
