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

from collections.abc import Iterable, Mapping

from assay.planner.plan import ScanAggregate, Slot

Group = tuple[tuple[str, ...], list[Slot]]
"""Slots reading the same columns (lower-cased, sorted), with those columns."""
_Held = tuple[tuple[str, ...], list[Slot], tuple[str, ...], int]
"""A column group in a branch as the refining weighs it: its columns, its slots, the
columns no other group of the branch reads, and their widths summed."""

REFINE_BUDGET = 100_000
"""Column visits :meth:`Packing.refine` may spend, each candidate's counted whether it
is weighed or remembered (:class:`_Search`): about half a second of Python at most when
every candidate was weighed anew, a few milliseconds since. The 300-rule benchmark
suite's refinement needs 30,000-70,000 (30,000 leave 44 reads instead of 41); 1,000
columns joined by one rule (tests/emit/test_plans_offline.py) took 19 s without a bound
and stop at it, their packing valid as it stands."""


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
        self.counts: list[dict[str, int]] = []
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
        cannot lower the reads. A branch left without slots is dropped (:class:`_Search`
        makes the moves)."""
        self.counts = [_counted(b, self.reads) for b in self.branches]
        if sum(map(len, self.counts)) == len(set().union(*self.counts)):
            return  # every column is read by one branch
        self.work = 0
        search = _Search(self)
        while search.step():  # every step lowers the reads, a positive count
            pass
        self.branches = [b for b in self.branches if b]  # one whose groups all moved away


def _counted(branch: list[Slot], reads: Mapping[str, tuple[str, ...]]) -> dict[str, int]:
    """How many of ``branch``'s slots read each column (the columns it reads only)."""
    counts: dict[str, int] = {}
    for slot in branch:
        for column in reads[slot.name]:
            counts[column] = counts.get(column, 0) + 1
    return counts


class _Search:
    """The moves and swaps of :meth:`Packing.refine`. A step weighs, in order, each group
    ``k`` of each branch ``i`` against each other branch ``j`` (a move into ``j``, else a
    swap with the first of ``j``'s groups that lowers the reads) and makes the first that
    lowers the reads. A candidate ``(i, k, j)`` weighed in an earlier step and found not
    to lower them is weighed alike while neither branch changed, so it is remembered
    (with the column visits it spent, counted to the budget as if spent again) rather
    than weighed anew: every step after the first weighs only the candidates of the two
    branches the last one changed (the 300-rule benchmark suite: 17 moves, its refining
    from 23 ms to 8 ms of CPU), the same moves, the budget spent alike
    (tests/planner/test_packing_search.py holds it against the slow form)."""

    def __init__(self, packing: Packing) -> None:
        self.packing = packing
        self.version = [0] * len(packing.branches)
        self.units: list[list[_Held] | None] = [None] * len(packing.branches)
        self.weighed: dict[tuple[int, int, int], tuple[int, int, int]] = {}

    def step(self) -> bool:
        """Make the first move or swap that lowers the reads; whether there was one."""
        packing, version, weighed = self.packing, self.version, self.weighed
        count = len(packing.branches)
        for i in range(count):
            for k in range(len(self._units(i))):
                for j in range(count):
                    if j == i:
                        continue
                    if packing.work > REFINE_BUDGET:
                        return False
                    known = weighed.get((i, k, j))
                    if known is not None and known[0] == version[i] and known[1] == version[j]:
                        packing.work += known[2]
                        continue
                    done, spent = self._weigh(i, k, j)
                    packing.work += spent
                    if done:
                        return True
                    weighed[i, k, j] = (version[i], version[j], spent)
        return False

    def _units(self, b: int) -> list[_Held]:
        """Branch ``b``'s slots grouped by the columns they read, in order, each group with
        the columns only it reads in the branch and their widths summed."""
        units = self.units[b]
        if units is None:
            reads, counts = self.packing.reads, self.packing.counts[b]
            found: dict[tuple[str, ...], list[Slot]] = {}
            for slot in self.packing.branches[b]:
                found.setdefault(reads[slot.name], []).append(slot)
            units = self.units[b] = []
            for key, slots in found.items():
                alone = tuple(c for c in key if counts[c] == len(slots))
                units.append((key, slots, alone, self._width(alone)))
        return units

    def _width(self, columns: Iterable[str]) -> int:
        """What reading ``columns`` once costs: their widths summed."""
        widths = self.packing.widths
        return sum(widths.get(c, 1) for c in columns)

    def _weigh(self, i: int, k: int, j: int) -> tuple[bool, int]:
        """Move branch ``i``'s group ``k`` into branch ``j``, or swap it with one of
        ``j``'s, if that lowers the reads: whether it did, and the column visits spent
        (the columns of every group weighed: those looked up, those counted).

        A change's reads: what a branch starts reading (the group's columns it does not
        read) less what it stops reading (those only the group taken out reads there,
        but those the group put in reads too)."""
        packing, size = self.packing, self.packing.size
        key, unit, alone, loss = self._units(i)[k]
        n, width = len(unit), len(key)
        held, other = packing.counts[i], packing.counts[j]
        spent = width
        into_j = any(c in other for c in key)
        mine, theirs = len(packing.branches[i]), len(packing.branches[j])
        gain = self._width(c for c in key if c not in other)
        if into_j and theirs + n <= size:
            spent += 2 * width
            if gain < loss:
                self._apply(i, unit, [])
                self._apply(j, [], unit)
                return True, spent
        for their_key, their, their_alone, _ in self._units(j):
            m = len(their)
            if mine - n + m > size or theirs - m + n > size:
                continue
            if not into_j:
                spent += len(their_key)
                if not any(c in held for c in their_key):
                    continue
            spent += 2 * (width + len(their_key))
            saved = (self._width(c for c in alone if c not in their_key) if alone else 0) + (
                self._width(c for c in their_alone if c not in key) if their_alone else 0
            )
            if saved and gain + self._width(c for c in their_key if c not in held) < saved:
                self._apply(i, unit, their)
                self._apply(j, their, unit)
                return True, spent
        return False, spent

    def _apply(self, b: int, out: list[Slot], into: list[Slot]) -> None:
        """Take ``out``'s slots out of branch ``b``, put ``into``'s in."""
        packing = self.packing
        taken = {slot.name for slot in out}
        packing.branches[b][:] = [s for s in packing.branches[b] if s.name not in taken] + into
        counts = packing.counts[b]
        for slot in out:
            for column in packing.reads[slot.name]:
                counts[column] -= 1
                if not counts[column]:
                    del counts[column]
        for slot in into:
            for column in packing.reads[slot.name]:
                counts[column] = counts.get(column, 0) + 1
        self.version[b] += 1
        self.units[b] = None
