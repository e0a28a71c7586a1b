"""Packing a table's scan slots into branches by the columns they read (pure,
deterministic): :func:`packed`, the search of :func:`assay.planner.cost.split_branches`.

Columns joined by a slot reading several of them (``a / b > 2``) form a component
(:func:`components`); a component that fits one branch is one piece and is never split,
a larger one is cut into pieces in an order keeping each column's slots together
(:func:`pieces`). The pieces are packed largest first, each into the open branch
sharing the most columns with it (else the first with room, else a new one); the
packing then moves and swaps column groups between branches while that saves reads
(:meth:`Packing.refine`); slots reading no column (the row count) fill the first branch
with room. A column is then read by two branches only where its component is larger
than a branch. Packing the groups in order instead read 8 of lineitem's 13 columns twice
in the 100-rule benchmark suite (TPC-H SF1, warm server, 7 rounds each, interleaved:
whole aggregate 5.46 s, packed by component 4.79 s, each column read once).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from assay.planner.plan import ScanAggregate, Slot

Group = tuple[tuple[str, ...], list[Slot]]
"""Slots reading the same columns (lower-cased, sorted), with those columns."""
Unit = tuple[tuple[str, ...], int]
"""A column group as the reads weigh it: its columns and its number of slots."""
_NONE: Unit = ((), 0)

REFINE_BUDGET = 100_000
"""Column visits :meth:`Packing.refine` may spend (about half a second of Python at
most). The 300-rule benchmark suite's refinement needs 30,000-60,000 (30,000 leave 44
reads instead of 41); 1,000 columns joined by one rule (tests/emit/test_plans_offline.py)
took 19 s without a bound and stop at it, their packing valid as it stands."""


def packed(
    groups: list[Group],
    free: list[Slot],
    size: int,
    order: Mapping[str, int],
    widths: Mapping[str, int] | None = None,
) -> list[ScanAggregate]:
    """Slots grouped by the columns they read, packed into branches of at most ``size``
    outputs so that as few columns as possible are read by more than one branch, the wide
    ones least of all (see the module docstring); ``free`` read no column, ``order``
    gives each slot's place (a branch lists its slots in that order), ``widths`` what
    reading a column once more costs (1 when not given: a fixed-width column)."""
    weights = dict(widths or {})
    reads = {slot.name: key for key, group in groups for slot in group}
    packing = Packing(reads, size, weights)
    for piece in sorted(pieces(groups, size, weights), key=len, reverse=True):  # stable
        packing.place(piece)
    packing.refine()
    packing.fill(free)
    return [ScanAggregate(tuple(sorted(b, key=lambda s: order[s.name]))) for b in packing.branches]


def pieces(
    groups: list[Group], size: int, widths: Mapping[str, int] | None = None
) -> list[list[Slot]]:
    """The slots of each component (:func:`components`) in pieces of at most ``size``: a
    component that fits is one piece, a larger one is cut in its order, and where a wide
    column's slots (``widths`` over 1) fit one piece the cut never falls among them."""
    weights = widths or {}
    found: list[list[Slot]] = []
    for component in components(groups, weights):
        cut: list[Slot] = []
        for run in _runs(component, weights):
            together = weights.get(_anchor(run[0][0], weights), 1) > 1
            slots = sum(len(group) for _, group in run)
            if together and slots <= size and len(cut) + slots > size:
                found.append(cut)  # a wide column's slots start a piece of their own
                cut = []
            for _, group in run:
                for start in range(0, len(group), size):
                    part = group[start : start + size]
                    if len(cut) + len(part) > size:
                        found.append(cut)
                        cut = []
                    cut.extend(part)
        found.append(cut)
    return [piece for piece in found if piece]


def _runs(component: list[Group], widths: Mapping[str, int]) -> list[list[Group]]:
    """A component's groups in runs: the groups anchored on one wide column together
    (:func:`_anchor`), every other group a run of its own."""
    runs: list[list[Group]] = []
    for group in component:
        anchor = _anchor(group[0], widths)
        if runs and widths.get(anchor, 1) > 1 and _anchor(runs[-1][0][0], widths) == anchor:
            runs[-1].append(group)
        else:
            runs.append([group])
    return runs


def _anchor(columns: tuple[str, ...], widths: Mapping[str, int]) -> str:
    """The column a group's slots stay beside: its widest (the first of equals, by name)."""
    return max(columns, key=lambda c: widths.get(c, 1))


def components(groups: list[Group], widths: Mapping[str, int] | None = None) -> list[list[Group]]:
    """The column groups in connected components (two groups are connected when they
    read a common column), in order of first appearance; within a component, the groups
    ordered by their anchor's first appearance (a group's anchor: its widest column, the
    first of equals, :func:`_anchor`), so each column's slots stay together and a slot
    reading several columns follows the widest of them (the first, when none is wide)."""
    weights = widths or {}
    parent: dict[str, str] = {}

    def root(column: str) -> str:
        while parent.setdefault(column, column) != column:
            column = parent[column]
        return column

    for columns, _ in groups:
        for other in columns[1:]:
            a, b = root(columns[0]), root(other)
            if a != b:
                parent[b] = a
    rank: dict[str, int] = {}
    for columns, _ in groups:
        for column in columns:
            rank.setdefault(column, len(rank))

    def placed(group: Group) -> tuple[int, int]:
        first = min(rank[c] for c in group[0])
        anchor = _anchor(group[0], weights)
        return (rank[anchor] if weights.get(anchor, 1) > 1 else first), first

    found: dict[str, list[Group]] = {}
    for group in groups:
        found.setdefault(root(group[0][0]), []).append(group)
    return [sorted(members, key=placed) for members in found.values()]


class Packing:
    """Branches of scan slots being packed: each slot's columns (``reads``), the largest
    branch (``size``), what reading each column once more costs (``widths``: 1 unless
    given), the branches, how many of each branch's slots read each column (``counts``,
    while refining) and the column visits spent (``work``)."""

    def __init__(
        self,
        reads: Mapping[str, tuple[str, ...]],
        size: int,
        widths: Mapping[str, int] | None = None,
    ) -> None:
        self.reads = reads
        self.size = size
        self.widths = widths or {}
        self.branches: list[list[Slot]] = []
        self.columns: list[set[str]] = []
        self.counts: list[Counter[str]] = []
        self.work = 0

    def place(self, piece: list[Slot]) -> None:
        """Put ``piece`` into the branch with room sharing the most columns with it (by
        width; the first of equals), else into a new branch."""
        columns = {c for slot in piece for c in self.reads[slot.name]}
        room = self._room(len(piece))
        if room:
            best = max(room, key=lambda b: (self._width(self.columns[b] & columns), -b))
            self.branches[best].extend(piece)
            self.columns[best] |= columns
        else:
            self.branches.append(list(piece))
            self.columns.append(columns)

    def fill(self, free: list[Slot]) -> None:
        """Put slots reading no column into the first branches with room, in parts of at
        most ``size``."""
        for start in range(0, len(free), self.size):
            part = free[start : start + self.size]
            room = self._room(len(part))
            if room:
                self.branches[room[0]].extend(part)
            else:
                self.branches.append(list(part))

    def _width(self, columns: set[str]) -> int:
        """What reading ``columns`` once costs: their widths summed."""
        return sum(self.widths.get(c, 1) for c in columns)

    def _room(self, slots: int) -> list[int]:
        """The branches with room for ``slots`` more slots."""
        return [b for b, branch in enumerate(self.branches) if len(branch) + slots <= self.size]

    def refine(self) -> None:
        """Lower the number of columns read by more than one branch: move the slots of one
        column group from a branch to another with room, or swap two groups between
        branches, while that reads fewer (branch, column) pairs, weighed by the columns'
        widths (a string read twice costs more than a long); first improvement, in
        branch and slot order, within :data:`REFINE_BUDGET`, so the result is
        deterministic. Where every column belongs to one component larger than a branch
        (the 300-rule benchmark suite, whose null tests of two columns join every column
        to the keys), the pieces' cut leaves columns read twice that such moves save (58
        reads of 16 columns in 9 branches -> 41). Only candidates sharing a column with
        the other side are weighed: a group moved where none of its columns is read
        cannot lower the reads. A branch left without slots is dropped."""
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
                    if self.work > REFINE_BUDGET:
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
