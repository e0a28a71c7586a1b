"""The series Deequ's anomaly detection tests build, and their helper that reads the numbers
of a detail text (``AnomalyDetectionTestUtils``).

Deequ draws its noise from ``scala.util.Random(seed).nextGaussian()`` (java.util.Random);
``fixtures/gaussians.json`` holds those draws, written by ``fixtures/Gaussians.java`` with
the JDK (``java Gaussians.java``): 1051 from seed 1 (51 for the online normal's series, then
1000 its variance test draws from the same generator; the batch normal's 50 are the first
50) and 14 from seed 42 (Holt-Winters' two weeks).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from assay.monitoring import Anomaly

GAUSSIANS = json.loads((Path(__file__).parent / "fixtures" / "gaussians.json").read_text())
SEED_1: list[float] = GAUSSIANS["seed_1"]
SEED_42: list[float] = GAUSSIANS["seed_42"]

_NUMBER = re.compile(r"[+-]?([0-9]*[.])?[0-9]+([Ee][0-9]+)?")


def first_double(detail: str) -> float:
    """``AnomalyDetectionTestUtils.firstDoubleFromString``."""
    found = _NUMBER.search(detail)
    if found is None:
        raise ValueError("Input string did not contain a numerical value")
    return float(found.group(0))


def first_three_doubles(detail: str) -> tuple[float, float, float]:
    """``AnomalyDetectionTestUtils.firstThreeDoublesFromString``."""
    values = [float(m.group(0)) for m in _NUMBER.finditer(detail)]
    if len(values) < 3:
        raise ValueError("Input string did not contain at least 3 numerical values.")
    return values[0], values[1], values[2]


def assert_details_name_the_value_out_of_bounds(anomalies: list[Anomaly]) -> None:
    """Deequ's "produce error message with correct value and bounds": each detail's first
    three numbers are the anomaly's value and bounds it is outside of."""
    assert anomalies
    for anomaly in anomalies:
        value, lower, upper = first_three_doubles(anomaly.detail)
        assert value == anomaly.value
        assert value < lower or value > upper


#: The change strategies' series: 1.0, except i (even i) and -i (odd i) for i in 20..30.
ABSOLUTE_SPIKES = [1.0 if i < 20 or i > 30 else float(i if i % 2 == 0 else -i) for i in range(51)]

#: The relative rate of change's: 1.0, except i (even i) for i in 20..30.
RELATIVE_SPIKES = [1.0 if i < 20 or i > 30 else float(i if i % 2 == 0 else 1) for i in range(51)]


def noisy_spikes(count: int) -> list[float]:
    """Seed-1 Gaussian noise plus i (even i) or -i (odd i) for i in 20..30: the normal
    strategies' series (``dist(i) += i + (i % 2 * -2 * i)``)."""
    data = SEED_1[:count]
    return [v + (i + (i % 2 * -2 * i)) if 20 <= i <= 30 else v for i, v in enumerate(data)]


MONTHLY_MILK_PRODUCTION = [
    589, 561, 640, 656, 727, 697, 640, 599, 568, 577, 553, 582,
    600, 566, 653, 673, 742, 716, 660, 617, 583, 587, 565, 598,
    628, 618, 688, 705, 770, 736, 678, 639, 604, 611, 594, 634,
    658, 622, 709, 722, 782, 756, 702, 653, 615, 621, 602, 635,
    677, 635, 736, 755, 811, 798, 735, 697, 661, 667, 645, 688,
    713, 667, 762, 784, 837, 817, 767, 722, 681, 687, 660, 698,
    717, 696, 775, 796, 858, 826, 783, 740, 701, 706, 677, 711,
    734, 690, 785, 805, 871, 845, 801, 764, 725, 723, 690, 734,
    750, 707, 807, 824, 886, 859, 819, 783, 740, 747, 711, 751,
    804, 756, 860, 878, 942, 913, 869, 834, 790, 800, 763, 800,
    826, 799, 890, 900, 961, 935, 894, 855, 809, 810, 766, 805,
    821, 773, 883, 898, 957, 924, 881, 837, 784, 791, 760, 802,
    828, 778, 889, 902, 969, 947, 908, 867, 815, 812, 773, 813,
    834, 782, 892, 903, 966, 937, 896, 858, 817, 827, 797, 843,
]  # fmt: skip

MONTHLY_CAR_SALES_QUEBEC = [
    6550, 8728, 12026, 14395, 14587, 13791, 9498, 8251, 7049, 9545, 9364, 8456,
    7237, 9374, 11837, 13784, 15926, 13821, 11143, 7975, 7610, 10015, 12759, 8816,
    10677, 10947, 15200, 17010, 20900, 16205, 12143, 8997, 5568, 11474, 12256, 10583,
    10862, 10965, 14405, 20379, 20128, 17816, 12268, 8642, 7962, 13932, 15936, 12628,
    12267, 12470, 18944, 21259, 22015, 18581, 15175, 10306, 10792, 14752, 13754, 11738,
    12181, 12965, 19990, 23125, 23541, 21247, 15189, 14767, 10895, 17130, 17697, 16611,
    12674, 12760, 20249, 22135, 20677, 19933, 15388, 15113, 13401, 16135, 17562, 14720,
    12225, 11608, 20985, 19692, 24081, 22114, 14220, 13434, 13598, 17187, 16119, 13713,
    13210, 14251, 20139, 21725, 26099, 21084, 18024, 16722, 14385, 21342, 17180, 14577,
]  # fmt: skip

HOURLY_TRAFFIC = [
    15, 13, 10, 7, 9, 6, 9, 8, 11, 12, 15, 17, 16, 15, 16, 12, 12, 16, 17, 20, 17, 19, 20, 15,
    14, 12, 14, 12, 12, 11, 13, 14, 12, 22, 32, 31, 35, 26, 34, 30, 27, 27, 24, 26, 29, 32, 30, 27,
    21, 18, 19, 13, 11, 11, 11, 14, 15, 29, 33, 32, 32, 29, 27, 26, 28, 26, 25, 29, 26, 24, 25, 20,
    18, 18, 13, 13, 10, 12, 13, 11, 13, 22, 26, 27, 31, 24, 23, 26, 26, 24, 23, 25, 26, 24, 26, 24,
    19, 20, 18, 13, 13, 9, 12, 12, 15, 16, 23, 24, 25, 24, 26, 22, 20, 20, 22, 26, 22, 21, 21, 21,
    16, 18, 19, 14, 12, 13, 14, 14, 13, 20, 22, 26, 26, 21, 23, 23, 19, 19, 20, 24, 18, 19, 16, 17,
    16, 16, 10, 9, 8, 7, 9, 8, 12, 13, 17, 14, 14, 14, 14, 11, 15, 13, 12, 17, 18, 17, 16, 15, 13,
]  # fmt: skip
