"""The bounded minimiser Deequ's Holt-Winters fits its smoothing parameters with: breeze's
``LBFGSB`` (2.1.0, Deequ's version) over breeze's ``ApproximateGradientFunction``, ported
step for step in pure Python.

The port keeps breeze's choices, including those that differ from Byrd, Lu, Nocedal and
Zhu's paper: forward differences with epsilon 1e-5 (the coordinate put back by subtracting
epsilon, so later coordinates see its rounding), the first iteration's direction to the
Cauchy point alone, a strong Wolfe line search (c1 1e-4, c2 0.9) bounded by the box, and
breeze's stopping rules: the projected gradient's infinity norm under 1e-5, 100 iterations,
the value unchanged (relative 1e-8) over the last 20, the gradient norm under
``max(1e-8 * |f|, 1e-8)``, or a second failed line search in a row. The one departure: where
breeze throws an exception it does not catch (a singular matrix, a step bound under 1, no
variable off its bound), this treats it as a failed line search (reset the history, then
give up), so detection never dies of it.

The problems are tiny (three parameters, five updates kept), so lists and Gauss-Jordan
elimination are enough; numpy and scipy are not needed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from assay.monitoring.linesearch import SearchFailed, strong_wolfe
from assay.monitoring.scala import div

Vector = list[float]
Matrix = list[list[float]]

EPSILON = 1e-5  # ApproximateGradientFunction
CURVATURE_EPS = 2.2e-16  # LBFGSB.EPS
PROJECTED_GRADIENT_EPS = 1e-5
MAX = 1.7976931348623157e308


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=False))


def _mat_vec(m: Matrix, v: Sequence[float]) -> Vector:
    return [_dot(row, v) for row in m]


def _transpose(m: Matrix, columns: int) -> Matrix:
    return [[row[j] for row in m] for j in range(columns)]


def _mat_mul(a: Matrix, b: Matrix, columns: int) -> Matrix:
    bt = _transpose(b, columns)
    return [[_dot(row, col) for col in bt] for row in a]


def _inverse(m: Matrix) -> Matrix:
    """Gauss-Jordan with partial pivoting; raises :class:`SearchFailed` when singular."""
    n = len(m)
    a = [[*row, *(1.0 if i == j else 0.0 for j in range(n))] for i, row in enumerate(m)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if a[pivot][col] == 0.0 or math.isnan(a[pivot][col]):
            raise SearchFailed("singular matrix")
        a[col], a[pivot] = a[pivot], a[col]
        scale = a[col][col]
        a[col] = [x / scale for x in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0.0:
                factor = a[r][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col], strict=False)]
    return [row[n:] for row in a]


@dataclass(frozen=True)
class History:
    """breeze's ``LBFGSB.History``: theta, W = [Y, theta S], M and the kept (s, y) pairs."""

    theta: float
    w: Matrix  # n rows
    m: Matrix  # square, as many rows as W has columns
    ys: tuple[Vector, ...] = ()
    ss: tuple[Vector, ...] = ()


@dataclass(frozen=True)
class State:
    x: Vector
    value: float
    grad: Vector
    iteration: int
    initial_value: float
    history: History
    values: tuple[float, ...] = (math.inf,)  # FunctionValuesConverged's memory
    search_failed: bool = False


@dataclass
class BoundedMinimizer:
    """breeze's ``LBFGSB(lowerBounds, upperBounds)`` with its defaults."""

    lower: Sequence[float]
    upper: Sequence[float]
    max_iterations: int = 100
    memory: int = 5
    tolerance: float = 1e-8
    max_zoom_iterations: int = 64
    max_line_search_iterations: int = 64
    value_memory: int = 20
    evaluations: int = field(default=0, init=False)

    def minimize(self, f: Callable[[Vector], float], x0: Sequence[float]) -> Vector:
        """The point where breeze's iterations stop, from the feasible ``x0``."""
        if not all(lo <= v <= hi for lo, v, hi in zip(self.lower, x0, self.upper, strict=False)):
            raise ValueError("seed is not feasible (violates lower bound or upperBounds)")
        x = list(x0)
        value, grad = self._calculate(f, x)
        state = State(x, value, grad, 0, value, self._initial_history(len(x)))
        failed_once = False
        while not self._converged(state):
            try:
                state = self._iterate(f, state)
                failed_once = False
            except SearchFailed:
                if failed_once:
                    state = replace(state, search_failed=True)
                else:
                    failed_once = True
                    state = replace(state, history=self._initial_history(len(x)))
        return state.x

    def _calculate(self, f: Callable[[Vector], float], x: Vector) -> tuple[float, Vector]:
        """ApproximateGradientFunction.calculate: forward differences."""
        self.evaluations += 1 + len(x)
        fx = f(x)
        xx = list(x)
        grad = []
        for k in range(len(x)):
            xx[k] += EPSILON
            grad.append((f(xx) - fx) / EPSILON)
            xx[k] -= EPSILON
        return fx, grad

    def _initial_history(self, n: int) -> History:
        size = 2 * self.memory
        return History(1.0, [[0.0] * size for _ in range(n)], [[0.0] * size for _ in range(size)])

    def _converged(self, state: State) -> bool:
        projected = 0.0
        for x, g, lo, hi in zip(state.x, state.grad, self.lower, self.upper, strict=False):
            v = x - g
            step = lo - x if v <= lo else hi - x if hi <= v else v - x
            projected = max(projected, abs(step))
        values = state.values
        return (
            projected < PROJECTED_GRADIENT_EPS
            or state.iteration >= self.max_iterations
            or (
                len(values) >= 2
                and abs(state.value - max(values)) <= self.tolerance * abs(state.initial_value)
            )
            or math.sqrt(_dot(state.grad, state.grad))
            <= max(self.tolerance * abs(state.value), 1e-8)
            or state.search_failed
        )

    def _iterate(self, f: Callable[[Vector], float], state: State) -> State:
        direction = self._direction(state)
        step = self._step_size(f, state, direction)
        x = self._clip([xi + di * step for xi, di in zip(state.x, direction, strict=False)])
        value, grad = self._calculate(f, x)
        history = self._update_history(
            state.history,
            [a - b for a, b in zip(x, state.x, strict=False)],
            [a - b for a, b in zip(grad, state.grad, strict=False)],
        )
        values = (*state.values, value)[-self.value_memory :]
        return State(x, value, grad, state.iteration + 1, state.initial_value, history, values)

    def _clip(self, point: Vector) -> Vector:
        return [
            min(max(v, lo), hi) for v, lo, hi in zip(point, self.lower, self.upper, strict=False)
        ]

    def _direction(self, state: State) -> Vector:
        cauchy, c = self._cauchy_point(state.history, state.x, state.grad)
        cauchy = self._clip(cauchy)
        if state.iteration == 0:
            return [a - b for a, b in zip(cauchy, state.x, strict=False)]
        target = self._clip(self._subspace_min(state.history, cauchy, state.x, c, state.grad))
        return [a - b for a, b in zip(target, state.x, strict=False)]

    def _cauchy_point(self, h: History, x: Vector, g: Vector) -> tuple[Vector, Vector]:
        """Algorithm CP, as breeze's ``getGeneralizedCauchyPoint`` writes it."""
        n, lower, upper = len(x), self.lower, self.upper
        d = [0.0] * n
        t = []
        for i, gi in enumerate(g):
            if gi == 0:
                t.append(MAX)
                continue
            ti = div(x[i] - upper[i], gi) if gi < 0 else div(x[i] - lower[i], gi)
            d[i] = 0.0 if ti == 0 else -gi
            t.append(ti)
        cauchy = list(x)
        columns = len(h.m)
        p = [sum(h.w[i][j] * d[i] for i in range(n)) for j in range(columns)]
        c = [0.0] * columns
        f1 = _dot(g, d)
        f2 = -h.theta * f1 - _dot(p, _mat_vec(h.m, p))
        dt_min = -div(f1, f2)
        old_t = 0.0
        order = sorted(range(n), key=lambda i: t[i])
        first = next((k for k, idx in enumerate(order) if t[idx] != 0), None)
        if first is None:  # breeze indexes -1 here and throws
            raise SearchFailed("every variable is at a bound")
        i = first
        b = order[i]
        min_t = t[b]
        delta_t = min_t - old_t
        while delta_t <= dt_min and i < n:
            cauchy[b] = upper[b] if d[b] > 0 else lower[b]
            zb = cauchy[b] - x[b]
            c = [ci + pi * delta_t for ci, pi in zip(c, p, strict=False)]
            wb = h.w[b]
            gb = g[b]
            f1 += (
                delta_t * f2
                + gb * gb
                + h.theta * gb * zb
                - _dot([w * gb for w in wb], _mat_vec(h.m, c))
            )
            f2 += (
                -1.0 * h.theta * gb * gb
                - 2.0 * (gb * _dot(wb, _mat_vec(h.m, p)))
                - gb * gb * _dot(wb, _mat_vec(h.m, wb))
            )
            p = [pi + w * gb for pi, w in zip(p, wb, strict=False)]
            d[b] = 0.0
            dt_min = -div(f1, f2)
            old_t = min_t
            i += 1
            if i < n:
                b = order[i]
                min_t = t[b]
                delta_t = min_t - old_t
        dt_min = max(dt_min, 0.0)
        old_t += dt_min
        for idx in order[i:]:
            cauchy[idx] = x[idx] + old_t * d[idx]
        c = [ci + pi * dt_min for ci, pi in zip(c, p, strict=False)]
        return cauchy, c

    def _subspace_min(self, h: History, cauchy: Vector, x: Vector, c: Vector, g: Vector) -> Vector:
        """The direct primal method, as breeze's ``subspaceMinimization`` writes it."""
        inv_theta = div(1.0, h.theta)
        free = [i for i, v in enumerate(cauchy) if v != self.upper[i] and v != self.lower[i]]
        columns = len(h.m)
        wz = [[h.w[i][r] for i in free] for r in range(columns)]  # W^T Z
        wmc = _mat_vec(h.w, _mat_vec(h.m, c))
        full_r = [
            gi + (ci - xi) * h.theta - w for gi, ci, xi, w in zip(g, cauchy, x, wmc, strict=False)
        ]
        rc = [full_r[i] for i in free]
        v = _mat_vec(h.m, _mat_vec(wz, rc))
        nn = _mat_mul(wz, _transpose(wz, len(free)), columns) if free else _zeros(columns)
        m_n = _mat_mul(h.m, [[e * inv_theta for e in row] for row in nn], columns)
        n_mat = [
            [(1.0 if r == k else 0.0) - m_n[r][k] for k in range(columns)] for r in range(columns)
        ]
        v = _mat_vec(_inverse(n_mat), v)  # breeze inverts N, then solves N \ v
        wzv = [e * (inv_theta * inv_theta) for e in _mat_vec(_transpose(wz, len(free)), v)]
        du = [(r * inv_theta + w) * -1.0 for r, w in zip(rc, wzv, strict=False)]
        alpha = self._max_step(cauchy, du, free)
        target = list(cauchy)
        for k, idx in enumerate(free):
            target[idx] += du[k] * alpha
        return target

    def _max_step(self, cauchy: Vector, du: Vector, free: list[int]) -> float:
        """breeze's ``findAlpha``: the longest step up to 1 that stays in the box."""
        alpha = 1.0
        for k, idx in enumerate(free):
            if du[k] > 0:
                alpha = min(alpha, div(self.upper[idx] - cauchy[idx], du[k]))
            elif du[k] < 0:
                alpha = min(alpha, div(self.lower[idx] - cauchy[idx], du[k]))
        return alpha

    def _update_history(self, h: History, s: Vector, y: Vector) -> History:
        """breeze's ``updateSkYkHessianApproxMat``: keep the pair only when it passes the
        curvature test (on ``|s.y|``), then rebuild W and M."""
        if abs(_dot(s, y)) <= CURVATURE_EPS * math.sqrt(_dot(y, y)):
            return h
        ys = (*h.ys, y)[-self.memory :]
        ss = (*h.ss, s)[-self.memory :]
        theta = div(_dot(y, y), _dot(y, s))
        k = len(ys)
        w = [[*(yy[i] for yy in ys), *(sv[i] * theta for sv in ss)] for i in range(len(s))]
        a = [[_dot(ss[r], ys[col]) for col in range(k)] for r in range(k)]
        top = [
            [-a[r][r] if col == r else 0.0 for col in range(k)]
            + [a[col][r] if col > r else 0.0 for col in range(k)]
            for r in range(k)
        ]
        bottom = [
            [a[r][col] if r > col else 0.0 for col in range(k)]
            + [_dot(ss[r], ss[col]) * theta for col in range(k)]
            for r in range(k)
        ]
        return History(theta, w, _inverse(top + bottom), ys, ss)

    def _step_size(self, f: Callable[[Vector], float], state: State, direction: Vector) -> float:
        bound = math.inf
        for xi, di, lo, hi in zip(state.x, direction, self.lower, self.upper, strict=False):
            if di != 0.0:
                step = div((lo if di < 0.0 else hi) - xi, di)
                bound = min(bound, step)

        def phi(alpha: float) -> tuple[float, float]:
            x = self._clip([xi + di * alpha for xi, di in zip(state.x, direction, strict=False)])
            value, grad = self._calculate(f, x)
            return value, _dot(grad, direction)

        return strong_wolfe(
            phi, 1.0, bound, self.max_zoom_iterations, self.max_line_search_iterations
        )


def _zeros(n: int) -> Matrix:
    return [[0.0] * n for _ in range(n)]
