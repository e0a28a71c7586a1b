"""The two-sample Kolmogorov-Smirnov p-value as ``scipy.stats.ks_2samp`` gives it by
default (``method='auto'``, two-sided): exact when both samples have at most 10000 values,
else the finite-n Kolmogorov distribution ``kstwo.sf(d, round(n m / (n + m)))``.

The exact p-value counts lattice paths (Hodges 1958, after Drion, Gnedenko and Korolyuk):
for equal sizes the alternating binomial sum evaluated as a Horner product, else the
"inside" recursion computing ``1 - p`` directly (Viehmann 2021, arXiv:2102.08037). The
finite-n distribution follows Simard and L'Ecuyer (2011): Ruben-Gambino's closed forms at
the ends, Durbin's matrix (Marsaglia, Tsang and Wang 2003), Pomeranz's recursion, the
Pelz-Good series, and twice the one-sided Smirnov tail (Birnbaum-Tingey's sum, summed
here in 40-digit decimals where cephes uses double-doubles).

This follows SciPy's ``scipy/stats/_stats_py.py``, ``_stats_pythran.py`` and
``_ksstats.py`` and cephes' ``kolmogorov.c`` step by step, so the numbers agree with scipy
(tests/integration/test_drift_ks.py):

    Copyright (c) 2001-2002 Enthought, Inc. 2003, SciPy Developers. All rights reserved.
    Redistribution and use in source and binary forms, with or without modification, are
    permitted under the BSD 3-Clause licence (scipy's LICENSE.txt): redistributions of
    source code must retain this notice, this list of conditions and the disclaimer;
    neither the name of the copyright holder nor the names of its contributors may be used
    to endorse or promote products derived from this software without specific prior
    written permission. THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND
    CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES ARE DISCLAIMED.

numpy (a dependency of pyspark and of pyspark-client) is imported only by the two
matrix/convolution algorithms of the finite-n distribution.
"""

from __future__ import annotations

import math
from decimal import Context, Decimal, localcontext
from typing import Any

MAX_EXACT = 10_000
"""ks_2samp's ``MAX_AUTO_N``: the exact p-value when both sizes are at most this."""

_MIN_LOG = -708
_MINLOG_CEPHES = -7.08396418532264106224e2
_SMIRNOV_MAX_N = 1_000_000
_DECIMAL_MAX_N = 10_000
_STIRLING = [
    -2.955065359477124183e-2,
    6.4102564102564102564e-3,
    -1.9175269175269175269e-3,
    8.4175084175084175084e-4,
    -5.952380952380952381e-4,
    7.9365079365079365079e-4,
    -2.7777777777777777778e-3,
    8.3333333333333333333e-2,
]


def ks_2samp_p_value(d: float, n: int, m: int) -> float:
    """The two-sided p-value of the two-sample KS statistic ``d`` of samples of ``n`` and
    ``m`` values (``scipy.stats.ks_2samp(...).pvalue``)."""
    if n <= 0 or m <= 0 or math.isnan(d):
        return math.nan
    if max(n, m) <= MAX_EXACT:
        p = exact_p_value(d, n, m)
        if p is not None:
            return _clip(p)
    big, small = sorted((float(n), float(m)), reverse=True)
    return _clip(kolmogorov_n_sf(round(big * small / (big + small)), d))


def exact_p_value(d: float, n: int, m: int) -> float | None:
    """The exact two-sided p-value (None where scipy's attempt fails: it then falls back
    to the finite-n distribution)."""
    g = math.gcd(n, m)
    lcm = (n // g) * m
    h = round(d * lcm)
    if h == 0:
        return 1.0
    try:
        p = _outside_square(n, h) if n == m else _outside_inside(n, m, g, h)
    except (OverflowError, ZeroDivisionError):
        return None
    return p if 0 <= p <= 1 else None


def _outside_square(n: int, h: int) -> float:
    """Equal sizes: ``P(D >= h / n) = 2 (A0 - A0 A1 + A0 A1 A2 - ...)`` where ``A_k`` is
    a ratio of binomials, evaluated from the last term (Horner)."""
    total = 0.0
    k = n // h
    while k >= 0:
        term = 1.0
        for j in range(h):
            term = (n - k * h - j) * term / (n + k * h + j + 1)
        total = term * (1.0 - total)
        k -= 1
    return 2 * total


_COLUMNS_WORK = 2_000_000
"""The cells (about ``big * 2h / (big / g)``) above which the band is walked by
anti-diagonals in numpy rather than by columns in Python."""


def _outside_inside(n: int, m: int, g: int, h: int) -> float:
    """Unequal sizes: by columns in Python when the band is narrow, else by
    anti-diagonals in numpy (the same operations on the same values: the same bits)."""
    big, small = max(n, m), min(n, m)
    if big * min(2 * h // (big // g) + 2, small + 1) <= _COLUMNS_WORK:
        return _outside_inside_method(n, m, g, h)
    return _outside_inside_diagonals(n, m, g, h)


def _outside_inside_diagonals(n: int, m: int, g: int, h: int) -> float:
    """:func:`_outside_inside_method`'s grid walked one anti-diagonal ``i + j = s`` at a
    time: a cell inside the band is ``(P(i-1, j) i + P(i, j-1) j) / s``, both neighbours on
    the previous diagonal, a cell outside it 1 (the path has left), column 0 inside 0."""
    import numpy as np

    big, small = (n, m) if n >= m else (m, n)
    bg, sg = big // g, small // g
    i = np.arange(big + 1, dtype=np.int64)
    low = np.minimum(np.maximum((sg * i - h) // bg + 1, 0), small)
    high = np.minimum(-(-(sg * i + h) // bg), small + 1)
    low[0], high[0] = 0, min(-(-h // bg), small + 1)
    if np.any(high[1:] <= low[1:]):
        return 1.0
    scale = i.astype(np.float64)
    previous = np.ones(big + 1)  # the diagonal s - 1, by i; only (0, 0) on s = 0
    previous[0] = 0.0 if high[0] > 0 else 1.0
    for s in range(1, big + small + 1):
        first, last = max(0, s - small), min(big, s)
        rows = slice(max(first, 1), last + 1)
        j = s - i[rows]
        inside = (j >= low[rows]) & (j < high[rows])
        left = previous[rows]  # P(i, j - 1), 0 times j = 0 on the bottom row
        below = previous[max(first, 1) - 1 : last]  # P(i - 1, j)
        value = (below * scale[rows] + left * j) / s
        current = np.ones(big + 1)
        current[rows] = np.where(inside, value, 1.0)
        if first == 0:
            current[0] = 0.0 if s < high[0] else 1.0
        previous = current
    return float(previous[big])


def _outside_inside_method(n: int, m: int, g: int, h: int) -> float:
    """Unequal sizes: the share of lattice paths from (0, 0) to (big, small) that leave
    the band ``|x / big - y / small| < h / lcm``, one column at a time over the band's
    window, each cell the share (not the count) so nothing overflows."""
    big, small = (n, m) if n >= m else (m, n)
    bg, sg = big // g, small // g
    low, high = 0, min(-(-h // bg), small + 1)
    width = high - low
    cells = [1.0] * min(2 * high + 2, small + 1)
    for j in range(low, high):
        cells[j] = 0.0
    for i in range(1, big + 1):
        last_low, last_width = low, width
        low = min(max((sg * i - h) // bg + 1, 0), small)
        high = min(-(-(sg * i + h) // bg), small + 1)
        if high <= low:
            return 1.0
        value = 0.0 if low == 0 else 1.0
        shift = low - last_low
        for k in range(high - low):
            j = k + low
            value = (cells[k + shift] * i + value * j) / (i + j)
            cells[k] = value
        width = high - low
        if last_width > width:
            for k in range(width, last_width):
                cells[k] = 1.0
    return cells[high - low - 1]


def kolmogorov_n_sf(n: int, x: float) -> float:
    """``P(D_n >= x)`` for the two-sided one-sample KS statistic of n values
    (``scipy.stats.kstwo.sf``; Simard and L'Ecuyer's choice of algorithm)."""
    if x >= 1.0:
        return 0.0
    if x <= 0.0:
        return 1.0
    t = n * x
    if t <= 1.0:  # Ruben-Gambino: 1/2n <= x <= 1/n
        if t <= 0.5:
            return 1.0
        if n <= 140:
            prob = 1.0
            for i in range(1, n + 1):
                prob *= i * (1.0 / n) * (2 * t - 1)
        else:
            prob = math.exp(_log_factorial_over_power(n) + n * math.log(2 * t - 1))
        return _clip(1.0 - prob)
    if t >= n - 1:  # Ruben-Gambino
        return _clip(2 * (1.0 - x) ** n)
    if x >= 0.5:
        return _clip(2 * smirnov_sf(n, x))
    nxx = t * x
    if n <= 140:
        if nxx <= 0.754693:
            return _clip(1.0 - _durbin_cdf(n, x))
        if nxx <= 4:
            return _clip(1.0 - _pomeranz_cdf(n, x))
        return _clip(2 * smirnov_sf(n, x))
    if nxx >= 370.0:
        return 0.0
    if nxx >= 2.2:
        return _clip(2 * smirnov_sf(n, x))
    if n <= 100000 and n * x**1.5 <= 1.4:
        return _clip(1.0 - _clip(_durbin_cdf(n, x)))
    return _clip(1.0 - _clip(_pelz_good_cdf(n, x)))


def _clip(p: float) -> float:
    return min(1.0, max(0.0, p))


def _log_factorial_over_power(n: int) -> float:
    """``log(n! / n^n)`` by Stirling's series with ``n log n`` taken out."""
    rn = 1.0 / n
    poly = 0.0
    for c in _STIRLING:
        poly = poly * (rn / n) + c
    return math.log(n) / 2 - n + math.log(2 * math.pi) / 2 + rn * poly


def smirnov_sf(n: int, x: float) -> float:
    """``P(D_n^+ >= x)``, the one-sided statistic's tail (``scipy.special.smirnov``):
    Birnbaum-Tingey's sum ``x sum_v C(n, v) (1 - x - v/n)^(n - v) (x + v/n)^(v - 1)``."""
    if n == 1:
        return 1.0 - x
    if x == 0.0:
        return 1.0
    if x == 1.0:
        return 0.0
    with localcontext(Context(prec=40)):
        dx, dn = Decimal(x), Decimal(n)
        nx = dn * dx
        floor_nx = int(nx)
        if floor_nx == 0 or nx == 1:  # x <= 1/n: 1 - x (1 + x)^(n - 1)
            return float(1 - dx * (1 + dx) ** (n - 1))
        if -2 * n * x * x < _MINLOG_CEPHES:
            return 0.0
        if floor_nx >= n - 1:
            return float((1 - dx) ** n)
        if n > _SMIRNOV_MAX_N:
            logp = -((6.0 * n * x + 1) ** 2) / 18.0 / n
            return math.exp(logp) if logp < -math.log(2) else 1 - (-math.expm1(logp))
        if n > _DECIMAL_MAX_N:
            return x * _birnbaum_tingey_logs(n, x)
        return float(dx * _birnbaum_tingey(n, dx, dn))


def _birnbaum_tingey(n: int, dx: Decimal, dn: Decimal) -> Decimal:
    """The sum's terms from v = 0 while ``1 - x - v/n > 0``, until the rest cannot move
    it (cephes' rule: the remaining terms times this one below a 1e-20 share)."""
    last = int(dn * (1 - dx))
    if dn * (1 - dx) == last:
        last -= 1  # that term is 0
    total = Decimal(0)
    binomial = Decimal(1)
    tiny = Decimal("1e-20")
    for v in range(last + 1):
        low, high = 1 - dx - v / dn, dx + v / dn
        term = binomial * low ** (n - v) * high ** (v - 1)
        total += term
        if term and 4 * (last - v) * term < tiny * total:
            break
        if not term and v > n // 2:
            break
        binomial = binomial * (n - v) / (v + 1)
    return total


def _birnbaum_tingey_logs(n: int, x: float) -> float:
    """The same sum for large n, every term at once (numpy) from its logarithm written
    without the large cancelling parts (Stirling's form of the binomial, the ``n log n``
    pieces cancelled by hand): ``log n - log(v + nx) + (n - v) log1p(-nx / (n - v))
    + v log1p(nx / v) + log(n / (2 pi v (n - v))) / 2 + s(n) - s(v) - s(n - v)``, ``s``
    Stirling's correction. Each term's error is about ``nx`` units in the last place."""
    import numpy as np

    nx = n * x
    last = math.ceil(n - nx) - 1  # the largest v with n - v - nx > 0
    v = np.arange(1, last + 1, dtype=np.float64)
    rest = n - v
    logs = (
        math.log(n)
        - np.log(v + nx)
        + rest * np.log1p(-nx / rest)
        + v * np.log1p(nx / v)
        + 0.5 * np.log(n / (2 * math.pi * v * rest))
        + _stirling_correction(np.array([float(n)]))[0]
        - _stirling_correction(v)
        - _stirling_correction(rest)
    )
    first = n * math.log1p(-x) - math.log(x)  # v = 0: (1 - x)^n / x
    return math.exp(first) + float(np.sum(np.exp(logs)))


def _stirling_correction(k: Any) -> Any:
    """``log(k!) - (k log k - k + log(2 pi k) / 2)`` for k >= 1 (numpy array): lgamma
    below 10, Stirling's series above."""
    import numpy as np

    small = k < 10
    out = np.empty_like(k)
    ks = k[small]
    out[small] = [
        math.lgamma(a + 1) - (a * math.log(a) - a + math.log(2 * math.pi * a) / 2) for a in ks
    ]
    big = k[~small]
    r = 1.0 / big
    r2 = r * r
    out[~small] = r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 * (1 / 1680 - r2 / 1188))))
    return out


def _durbin_cdf(n: int, d: float) -> float:
    """``P(D_n <= d)`` by Durbin's matrix (Marsaglia, Tsang and Wang): the k-th diagonal
    entry of ``H^n`` times ``n! / n^n``, rescaled by 2^128 to stay in range."""
    import numpy as np

    if d >= 1.0:
        return 1.0
    nd = n * d
    if nd <= 0.5:
        return 0.0
    k = math.ceil(nd)
    h = k - nd
    size = 2 * k - 1
    big, small = np.ldexp(np.longdouble(1), 128), np.ldexp(np.longdouble(1), -128)
    powers = np.arange(1, size + 1)
    v = 1.0 - h**powers
    w = np.empty(size)
    fac = 1.0
    for j in powers:
        w[j - 1] = fac
        fac /= j
        v[j - 1] *= fac
    tt = max(2 * h - 1.0, 0) ** size - 2 * h**size
    v[-1] = (1.0 + tt) * fac
    matrix = np.zeros([size, size])
    for i in range(1, size):
        matrix[i - 1 :, i] = w[: size - i + 1]
    matrix[:, 0] = v
    matrix[-1, :] = np.flip(v, axis=0)
    result, exponent, matrix_exponent, left = np.eye(size), 0, 0, n
    while left > 0:
        if left % 2:
            result = np.matmul(result, matrix)
            exponent += matrix_exponent
        matrix = np.matmul(matrix, matrix)
        matrix_exponent *= 2
        if np.abs(matrix[k - 1, k - 1]) > big:
            matrix = matrix / big
            matrix_exponent += 128
        left //= 2
    p = result[k - 1, k - 1]
    for i in range(1, n + 1):
        p = i * p / n
        if np.abs(p) < small:
            p *= big
            exponent -= 128
    return _clip(float(np.ldexp(p, exponent) if exponent else p))


def _pomeranz_bounds(i: int, n: int, ll: int, ceilf: int, roundf: int) -> tuple[int, int]:
    if i == 0:
        j1, j2 = -ll - ceilf - 1, ll + ceilf - 1
    else:
        half, odd = divmod(i + 1, 2)
        if odd == 0:
            if half == n + 1:
                j1, j2 = n - ll - ceilf - 1, n + ll + ceilf - 1
            else:
                j1, j2 = half - 1 - ll - roundf - 1, half + ll - 1 + ceilf - 1
        else:
            j1, j2 = half - 1 - ll - 1, half + ll + roundf - 1
    return max(j1 + 2, 0), min(j2, n)


def _pomeranz_cdf(n: int, x: float) -> float:
    """``P(D_n <= x)`` by Pomeranz's recursion: rows convolved with Poisson-like weights,
    two rows kept, rescaled by 2^128 against underflow, times n! at the end."""
    import numpy as np

    t = n * x
    ll = math.floor(t)
    f = 1.0 * (t - ll)
    g = min(f, 1.0 - f)
    ceilf, roundf = (1 if f > 0 else 0), (1 if f > 0.5 else 0)
    count = 2 * (ll + 1)
    weights = np.empty((3, count))  # (g/n)^m/m!, (2g/n)^m/m!, ((1-2g)/n)^m/m!
    weights[:, 0] = 1.0
    steps = (g / n, 2 * g / n, (1 - 2 * g) / n)
    for j in range(1, count):
        for r in range(3):
            weights[r, j] = weights[r, j - 1] * steps[r] / j
    big, small = np.ldexp(np.longdouble(1), 128), np.ldexp(np.longdouble(1), -128)
    row0, row1 = np.zeros([count]), np.zeros([count])
    row1[0] = 1
    start0 = start1 = exponent = 0
    j1, j2 = _pomeranz_bounds(0, n, ll, ceilf, roundf)
    for i in range(1, 2 * n + 2):
        k1 = j1
        row0, row1 = row1, row0
        start0, start1 = start1, start0
        row1.fill(0.0)
        j1, j2 = _pomeranz_bounds(i, n, ll, ceilf, roundf)
        pick = 0 if i == 1 or i == 2 * n + 1 else (1 if i % 2 else 2)
        ln2 = j2 - k1 + 1
        if ln2 > 0:
            conv = np.convolve(row0[k1 - start0 : k1 - start0 + ln2], weights[pick, :ln2])
            length = j2 - j1 + 1
            row1[:length] = conv[j1 - k1 : j1 - k1 + length]
            if 0 < np.max(row1) < small:
                row1 *= big
                exponent -= 128
            start1 = start0 + j1 - k1
    answer = row1[n - start1]
    for j in range(1, n + 1):
        if np.abs(answer) > big:
            answer *= small
            exponent += 128
        answer *= j
    return _clip(float(np.ldexp(answer, exponent) if exponent else answer))


def _pelz_good_cdf(n: int, x: float) -> float:
    """``P(D_n <= x)`` by the Pelz-Good series (Li-Chien and Korolyuk's expansion in
    ``1/sqrt(n)`` transformed by Jacobi's theta identity for small ``x sqrt(n)``)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    z = math.sqrt(n) * x
    z2, z3, z4, z6 = z**2, z**3, z**4, z**6
    pi2, pi4, pi6 = math.pi**2, math.pi**4, math.pi**6
    qlog = -pi2 / 8 / z2
    if qlog < _MIN_LOG:
        return 0.0
    q = math.exp(qlog)
    k1a, k1b = -z2, pi2 / 4
    k2a, k2b, k2c = 6 * z6 + 2 * z4, (2 * z4 - 5 * z2) * pi2 / 4, pi4 * (1 - 2 * z2) / 16
    k3d = pi6 * (5 - 30 * z2) / 64
    k3c = pi4 * (-60 * z2 + 212 * z4) / 16
    k3b = pi2 * (135 * z4 - 96 * z6) / 4
    k3a = -30 * z6 - 90 * z**8
    terms = [0.0, 0.0, 0.0, 0.0]
    top = math.ceil(16 * z / math.pi)
    for k in range(top, 0, -1):
        m = 2 * k - 1
        m2, m4, m6 = m**2, m**4, m**6
        qpower = q ** (8 * k)
        coeffs = (
            1.0,
            k1a + k1b * m2,
            k2a + k2b * m2 + k2c * m4,
            k3a + k3b * m2 + k3c * m4 + k3d * m6,
        )
        terms = [a * qpower + c for a, c in zip(terms, coeffs, strict=True)]
    root = math.sqrt(2 * math.pi)
    scale = (z, 6 * z4, 72 * z**7, 6480 * z**10)
    terms = [a * q * root / s for a, s in zip(terms, scale, strict=True)]
    q = math.exp(-pi2 / 2 / z2)
    ks = range(top, 0, -1)
    k2extra = sum(k * k * q ** (k * k) for k in ks) * (pi2 * root / (-36 * z3))
    terms[2] += k2extra
    s3 = math.sqrt(3) * z
    k3extra = sum((s3 + math.pi * k) * (s3 - math.pi * k) * k * k * q ** (k * k) for k in ks)
    terms[3] += k3extra * (pi2 * root / (216 * z6))
    return math.fsum(a / float(n) ** (i / 2.0) for i, a in enumerate(terms))
