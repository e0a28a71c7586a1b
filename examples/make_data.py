"""Regenerate the bundled example data (deterministic; needs only pyarrow).

    python examples/make_data.py

orders.parquet: 1,000 orders; three have a malformed customer email (the example's
deliberately failing rule), a few have no coupon. customers.parquet: 200 customers.
people.orc / people.parquet / people.csv: 100 people for the dialect examples
(examples/data_validator, examples/metorikku, examples/sparquet): ids 1-100, one null
name, two negative balances, a few non-matching codes.
"""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).parent / "data"
STATUSES = ["placed", "shipped", "delivered", "returned"]


def orders(rng: random.Random) -> pa.Table:
    n = 1000
    start = dt.date(2024, 1, 1)
    emails = [f"customer{i % 200}@example.com" for i in range(n)]
    for bad in (17, 423, 911):
        emails[bad] = f"customer{bad % 200}.example.com"
    return pa.table({
        "order_id": pa.array(range(1, n + 1), pa.int64()),
        "customer_id": pa.array([i % 200 + 1 for i in range(n)], pa.int64()),
        "email": pa.array(emails, pa.string()),
        "status": pa.array([rng.choice(STATUSES) for _ in range(n)], pa.string()),
        "quantity": pa.array([rng.randint(1, 20) for _ in range(n)], pa.int32()),
        "amount": pa.array(
            [Decimal(rng.randint(100, 50000)) / 100 for _ in range(n)], pa.decimal128(10, 2)
        ),
        "coupon": pa.array([None if rng.random() < 0.7 else "SAVE10" for _ in range(n)], pa.string()),
        "ordered_on": pa.array([start + dt.timedelta(days=i % 365) for i in range(n)], pa.date32()),
    })


def customers(rng: random.Random) -> pa.Table:
    n = 200
    return pa.table({
        "customer_id": pa.array(range(1, n + 1), pa.int64()),
        "name": pa.array([f"Customer {i}" for i in range(1, n + 1)], pa.string()),
        "country": pa.array([rng.choice(["BR", "US", "DE", "JP"]) for _ in range(n)], pa.string()),
        "age": pa.array([rng.randint(18, 90) for _ in range(n)], pa.int32()),
    })


def people() -> pa.Table:
    """Deterministic (no randomness): the dialect examples' expected results are exact."""
    n = 100
    start = dt.date(2024, 1, 1)
    depts = ["eng", "ops", "sales", "hr"]
    return pa.table({
        "id": pa.array(range(1, n + 1), pa.int64()),
        "name": pa.array([None if i == 7 else f"person{i}" for i in range(1, n + 1)], pa.string()),
        "age": pa.array([18 + (i * 7) % 60 for i in range(1, n + 1)], pa.int32()),
        "balance": pa.array([-5.0 if i in (3, 4) else float(i * 10) for i in range(1, n + 1)], pa.float64()),
        "dept": pa.array([depts[i % 4] for i in range(1, n + 1)], pa.string()),
        "code": pa.array([f"C{i:03d}" if i % 25 else f"X{i}" for i in range(1, n + 1)], pa.string()),
        "start_date": pa.array([start + dt.timedelta(days=i) for i in range(1, n + 1)], pa.date32()),
        "end_date": pa.array([start + dt.timedelta(days=i + (0 if i == 50 else 30)) for i in range(1, n + 1)], pa.date32()),
    })


def main() -> None:
    import pyarrow.csv as pcsv
    import pyarrow.orc as po

    rng = random.Random(42)
    HERE.mkdir(exist_ok=True)
    pq.write_table(orders(rng), HERE / "orders.parquet")
    pq.write_table(customers(rng), HERE / "customers.parquet")
    table = people()
    po.write_table(table, HERE / "people.orc")
    pq.write_table(table, HERE / "people.parquet")
    pcsv.write_csv(table.select(["id", "name", "dept"]), HERE / "people.csv")


if __name__ == "__main__":
    main()
