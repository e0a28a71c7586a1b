"""The refining's search (:class:`assay.planner.packing._Search`, which remembers the
candidates it weighed and weighs a change by the columns only a group reads) makes the
moves the slow form made, and spends the budget alike: the slow form, as it was before
(every step weighing every candidate anew, each change counted column by column), is kept
here as the reference, and both pack generated suites built to break the fast one (ties,
equal widths, one column in every group, full branches, the budget running out), the
benchmark suites as a run and as explain plan them, into the same branches."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from assay.planner import packing as packing_module
from assay.planner import plan_table
from assay.planner.packing import REFINE_BUDGET, Group, Packing, packed
from assay.planner.plan import Slot
from tests.planner.test_packing_widths import LINEITEM, _slot, _suite_table

Unit = tuple[tuple[str, ...], int]
_NONE: Unit = ((), 0)


class SlowPacking(Packing):
    """:class:`Packing` with the refining as it was (commit 35e26c8): the reference."""

    def refine(self) -> None:
        self.counts = [Counter(c for s in b for c in self.reads[s.name]) for b in self.branches]
        if sum(map(len, self.counts)) == len(set().union(*self.counts)):
            return  # every column is read by one branch
        self.work = 0
        while self._step():  # every step lowers the reads, a positive count
            pass
        self.branches = [b for b in self.branches if b]  # one whose groups all moved away

    def _step(self) -> bool:
        """Make the first move or swap that lowers the reads; whether there was one."""
        groups = [self._units(b) for b in range(len(self.branches))]
        for i, own in enumerate(groups):
            for key, unit in own:
                for j in (j for j in range(len(self.branches)) if j != i):
                    if self.work > packing_module.REFINE_BUDGET:
                        return False
                    into_j = self._shares(j, key)
                    if self._moved(i, j, (key, unit), into_j):
                        return True
                    if self._swapped(i, j, (key, unit), into_j, groups[j]):
                        return True
        return False

    def _moved(self, i: int, j: int, group: Group, into_j: bool) -> bool:
        """Move ``group`` (of branch ``i``) into branch ``j`` (``into_j``: which reads one
        of its columns) if it has room and that lowers the reads; whether it did."""
        key, unit = group
        mine = (key, len(unit))
        room = len(self.branches[j]) + len(unit) <= self.size
        if room and into_j and self._change(i, mine, _NONE) + self._change(j, _NONE, mine) < 0:
            self._apply(i, unit, [])
            self._apply(j, [], unit)
            return True
        return False

    def _swapped(self, i: int, j: int, group: Group, into_j: bool, theirs: list[Group]) -> bool:
        """Swap ``group`` (of branch ``i``) with the first of ``theirs`` (branch ``j``'s
        groups) that fits and lowers the reads; whether it did."""
        key, unit = group
        mine = (key, len(unit))
        for other_key, other in theirs:
            their = (other_key, len(other))
            fits = (len(self.branches[i]) - len(unit) + len(other) <= self.size
                    and len(self.branches[j]) - len(other) + len(unit) <= self.size)  # fmt: skip
            if not fits or not (into_j or self._shares(i, other_key)):
                continue
            if self._change(i, mine, their) + self._change(j, their, mine) < 0:
                self._apply(i, unit, other)
                self._apply(j, other, unit)
                return True
        return False

    def _units(self, b: int) -> list[Group]:
        """Branch ``b``'s slots grouped by the columns they read, in order."""
        found: dict[tuple[str, ...], list[Slot]] = {}
        for slot in self.branches[b]:
            found.setdefault(self.reads[slot.name], []).append(slot)
        return list(found.items())

    def _shares(self, b: int, columns: tuple[str, ...]) -> bool:
        """Whether branch ``b`` reads one of ``columns``."""
        self.work += len(columns)
        return any(self.counts[b][c] > 0 for c in columns)

    def _change(self, b: int, out: Unit, into: Unit) -> int:
        """How much more branch ``b`` reads with ``out`` taken out, ``into`` put in: the
        widths of the columns it starts reading less those it stops reading."""
        (gone, n_gone), (come, n_come) = out, into
        delta = 0
        for column in {*gone, *come}:
            now = self.counts[b][column]
            after = now - (n_gone if column in gone else 0) + (n_come if column in come else 0)
            delta += ((after > 0) - (now > 0)) * self.widths.get(column, 1)
        self.work += len(gone) + len(come)
        return delta

    def _apply(self, b: int, out: list[Slot], into: list[Slot]) -> None:
        """Take ``out``'s slots out of branch ``b``, put ``into``'s in."""
        taken = {slot.name for slot in out}
        self.branches[b][:] = [s for s in self.branches[b] if s.name not in taken] + into
        self.counts[b].subtract(c for slot in out for c in self.reads[slot.name])
        self.counts[b].update(c for slot in into for c in self.reads[slot.name])


# -- the two side by side -------------------------------------------------------------------


def _both(monkeypatch, pack):
    """``pack()`` (a call packing through :class:`Packing`) with the search and with the
    slow form: each's result and the refinings' column visits, in order."""
    made: dict[str, list[Packing]] = {"fast": [], "slow": []}
    results = {}
    for name, base in (("fast", Packing), ("slow", SlowPacking)):

        class Recorded(base):  # type: ignore[misc, valid-type]
            def refine(self) -> None:
                made[name].append(self)  # noqa: B023 - called before the loop moves on
                super().refine()

        monkeypatch.setattr(packing_module, "Packing", Recorded)
        results[name] = pack()
    monkeypatch.setattr(packing_module, "Packing", Packing)
    works = {name: [p.work for p in packings] for name, packings in made.items()}
    return results["fast"], results["slow"], works


def _names(branches) -> list[list[str]]:
    return [[s.name for s in b.slots] for b in branches]


def _generated(seed: int) -> tuple[list[Group], int, dict[str, int]]:
    """Column groups built to break the search: few columns or many, keys of one to four
    columns, one column in every group (or none), equal widths, ties of wide ones, and
    branches from two slots to 24."""
    rng = random.Random(seed)
    columns = [f"c{n}" for n in range(rng.choice((2, 3, 5, 8, 16, 40)))]
    every = rng.random() < 0.4
    groups: dict[tuple[str, ...], list[Slot]] = {}
    for n in range(rng.randint(1, 120)):
        key = set(rng.sample(columns, rng.randint(1, min(4, len(columns)))))
        if every:
            key.add("k")
        groups.setdefault(tuple(sorted(key)), []).append(_slot(f"m{n}", *sorted(key)))
    size = rng.choice((2, 3, 4, 7, 10, 24))
    widths = rng.choice(
        (
            {},
            dict.fromkeys(columns, 8),
            {c: 8 for c in columns if rng.random() < 0.3},
            {c: rng.choice((1, 2, 3)) for c in columns},
            {"k": 8},
        )
    )
    return list(groups.items()), size, widths


@pytest.mark.parametrize("seed", range(200))
def test_the_search_packs_generated_groups_as_the_slow_form(monkeypatch, seed):
    """Every fourth with a budget of a few hundred visits, so the refining stops midway."""
    groups, size, widths = _generated(seed)
    if seed % 4 == 1:
        monkeypatch.setattr(packing_module, "REFINE_BUDGET", random.Random(seed).randint(0, 900))
    free = [_slot("rows")] if seed % 3 == 0 else []
    order = {s.name: n for n, s in enumerate([*(s for _, g in groups for s in g), *free])}
    fast, slow, works = _both(monkeypatch, lambda: packed(groups, free, size, order, widths))
    assert _names(fast) == _names(slow)
    assert works["fast"] == works["slow"]


@pytest.mark.parametrize("rules", [100, 300])
@pytest.mark.parametrize("typed", [True, False])
def test_the_benchmark_suites_plan_as_with_the_slow_form(tmp_path, monkeypatch, rules, typed):
    """As a run plans them (the column types known) and as explain does (none known)."""
    table = _suite_table(tmp_path, monkeypatch, rules)
    types = LINEITEM if typed else None

    def plan():
        return plan_table(table, size_bytes=231_672_087, columnar=True, types=types)

    fast, slow, works = _both(monkeypatch, plan)
    assert fast == slow
    assert works["fast"] == works["slow"]
    assert rules == 100 or any(works["fast"])  # the 100-rule suite reads each column once


def test_the_budget_runs_out_at_the_same_move():
    """1,000 columns joined by one slot, each read by one more (the refining of
    tests/emit/test_plans_offline.py's thousand rules): both stop at the budget, with the
    same branches, having spent the same visits."""
    groups: list[Group] = [(tuple(sorted(f"c{n}" for n in range(1000))), [_slot("all")])]
    groups += [((f"c{n}",), [_slot(f"m{n}", f"c{n}")]) for n in range(1000)]
    reads = {s.name: key for key, g in groups for s in g}
    results = []
    for kind in (Packing, SlowPacking):
        packing = kind(reads, 24)
        for piece in packing_module.pieces(groups, 24):
            packing.place(piece)
        packing.refine()
        results.append(([[s.name for s in b] for b in packing.branches], packing.work))
    assert results[0] == results[1]
    assert results[0][1] > REFINE_BUDGET
