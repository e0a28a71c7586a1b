"""A result line says what was checked: the bound behind a failing value, the pattern, the
list, as a line a reader reads (``expect.text``, also in the message) and as the
parameters the user wrote (``expect.params``), for every rule of a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_config, validate_event

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]


def test_every_result_line_of_the_example_says_what_it_checked(spark) -> None:
    out = run_config(spark, ROOT / "examples/orders.yaml")
    for event in out.events:
        validate_event(event)
    by_type = {}
    for result in out.results:
        assert result["expect"]["text"], result
        if result["table"] == "orders":
            by_type.setdefault(result["rule"]["type"], result)
    quantity = by_type["range"]
    assert quantity["expect"] == {
        "text": "quantity between 1 and 20",
        "params": {"column": "quantity", "min": 1, "max": 20},
    }
    email = by_type["regex"]
    assert email["expect"]["text"] == (
        "email is not null and email matches ^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$"
    )
    assert not email["passed"]
    assert email["message"] == (
        f"{email['failed_count']} of {email['row_count']} rows fail: regex ("
        + email["expect"]["text"]
        + ")"
    )
    status = by_type["accepted_values"]
    assert status["expect"]["params"]["values"] == ["placed", "shipped", "delivered", "returned"]
    assert by_type["avg"]["expect"]["text"].startswith("avg(amount) ")
