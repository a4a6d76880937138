"""The page trainers' transcendental functions, in Python floats, bit for bit.

The book's in-browser trainers (``book/_extra/_static/cell_model.js`` and
``act_model.js``) must train the same model from the same seed in every browser.
ECMAScript lets ``Math.exp``, ``Math.tanh``, ``Math.log``, ``Math.log1p``,
``Math.cos`` and ``**`` round their last bit differently in each JavaScript engine,
and over thousands of training steps one bit grows into another run. IEEE 754 rounds
``+ - * /`` correctly, so alike in every engine; ``book/_extra/_static/exact_math.js``
builds those functions from them, comparisons, ``floor`` and ``abs`` only, on fdlibm's
algorithms and coefficients (Sun Microsystems 1993, as FreeBSD's msun and musl carry
them).

This module is the same algorithm with the same operations in the same order, so it
returns the same double as the JavaScript: ``tests/test_exact_math.py`` runs the
JavaScript on tens of thousands of inputs a function and checks every result bit for
bit against these, and checks these
against :mod:`math` (1 ulp apart, 3 for tanh). Pure functions of Python floats; no
torch, no :mod:`math` transcendental is called.
"""

from __future__ import annotations

import math

MIN_POWER, MAX_POWER = -1074, 1023


def _powers_of_two() -> list[float]:
    """2^k for k = MIN_POWER..MAX_POWER, each exact: doubling or halving a power of
    two is exact."""
    powers = [0.0] * (MAX_POWER - MIN_POWER + 1)
    powers[-MIN_POWER] = 1.0
    for k in range(1, MAX_POWER + 1):
        powers[k - MIN_POWER] = powers[k - 1 - MIN_POWER] * 2
    for k in range(-1, MIN_POWER - 1, -1):
        powers[k - MIN_POWER] = powers[k + 1 - MIN_POWER] / 2
    return powers


_POWERS = _powers_of_two()


def _two_to(k: int) -> float:
    return _POWERS[k - MIN_POWER]


# ln 2 in two parts: LN2_HI's last 11 bits are zero, so k * LN2_HI is exact for
# |k| < 2^11 (Cody and Waite 1980).
LN2_HI, LN2_LO = 0.6931471803691238, 1.908_214_929_270_587_7e-10
INV_LN2 = 1.4426950408889634
HALF_LN2 = 0.34657359027997264
EXP_OVERFLOW = 709.782712893384  # exp above it: inf
EXP_UNDERFLOW = -745.1332191019411  # exp below it: 0
EXPM1_SATURATES = 38.816242111356935  # 56 ln 2: expm1 below -it is -1
# fdlibm e_exp.c: exp(r) = 1 + r + r c / (2 - c), c = r - r^2 P(r^2)
P1, P2 = 0.16666666666666602, -0.0027777777777015593
P3, P4 = 6.613_756_321_437_934e-05, -1.653_390_220_546_525_2e-06
P5 = 4.138_136_797_057_238_5e-08
# fdlibm s_expm1.c: the scaled rational approximation's Q1..Q5
Q1, Q2 = -0.03333333333333313, 0.0015873015872548146
Q3, Q4 = -7.936_507_578_674_88e-05, 4.008_217_827_329_362e-06
Q5 = -2.010_992_181_836_243_7e-07
# fdlibm s_log1p.c: log(1 + f) = 2s + s R(s^2), s = f / (2 + f)
LP1, LP2, LP3 = 0.6666666666666735, 0.3999999999940942, 0.2857142874366239
LP4, LP5, LP6 = 0.22222198432149784, 0.1818357216161805, 0.15313837699209373
LP7 = 0.14798198605116586
SQRT2, SQRT_HALF = 1.4142135623730951, 0.7071067811865476
# fdlibm k_cos.c and k_sin.c: the even and odd polynomials on [-pi/4, pi/4]
C1, C2 = 0.0416666666666666, -0.001388888888887411
C3, C4 = 2.480_158_728_947_673e-05, -2.755_731_435_139_066_3e-07
C5, C6 = 2.087_572_321_298_175e-09, -1.135_964_755_778_819_5e-11
S1, S2, S3 = -0.16666666666666632, 0.00833333333332249, -0.0001984126982985795
S4, S5 = 2.755_731_370_707_006_8e-06, -2.505_076_025_340_686_3e-08
S6 = 1.589_690_995_211_55e-10
# pi/2 in 33-bit parts and their tails (fdlibm e_rem_pio2.c): n * PIO2_1 is exact for
# n < 2^20
INV_PIO2, PI_4 = 0.6366197723675814, 0.7853981633974483
PIO2_1, PIO2_1T = 1.5707963267341256, 6.077_100_506_506_192e-11
PIO2_2, PIO2_2T = 6.077_100_506_303_966e-11, 2.022_266_248_795_950_6e-21
PIO2_3, PIO2_3T = 2.022_266_248_711_166_5e-21, 8.478_427_660_368_9e-32
HALF_LOG3, HALF_LOG5_3 = 0.5493061443340549, 0.25541281188299536
MIN_NORMAL, TWO_53 = _two_to(-1022), _two_to(53)
SPLITTER = _two_to(27) + 1  # Veltkamp's: splits a double into two 26-bit halves


def _scaled(y: float, k: int) -> float:
    """y * 2^k rounded once, for y near 1 and k in -1075..1024 (fdlibm e_exp.c)."""
    if k > MAX_POWER:
        return y * 2 * _two_to(MAX_POWER)
    if k < -1021:
        return y * _two_to(k + 1000) * _two_to(-1000)
    return y * _two_to(k)


def exp(x: float) -> float:
    """e^x as the page computes it (nan, +-inf, overflow and underflow as Math.exp):
    x = k ln2 + r, |r| <= ln2 / 2 (Cody and Waite 1980), e^x = 2^k e^r (fdlibm
    e_exp.c)."""
    if x != x:
        return x
    if x > EXP_OVERFLOW:
        return math.inf
    if x < EXP_UNDERFLOW:
        return 0.0
    if abs(x) < _two_to(-28):
        return 1 + x
    k = 0 if abs(x) <= HALF_LN2 else math.floor(x * INV_LN2 + 0.5)
    hi, lo = x - k * LN2_HI, k * LN2_LO
    r = hi - lo
    t = r * r
    c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))))
    if k == 0:
        return 1 - ((r * c) / (c - 2) - r)
    return _scaled(1 - ((lo - (r * c) / (2 - c)) - hi), k)


def expm1(x: float) -> float:
    """e^x - 1, accurate near 0 too (fdlibm s_expm1.c): x = k ln2 + r + c, the
    reduction's rounding c carried as a correction."""
    if x != x:
        return x
    size = abs(x)
    if size >= EXPM1_SATURATES:
        if x < 0:
            return -1.0
        if x > EXP_OVERFLOW:
            return math.inf
    if size < _two_to(-54):
        return x
    k, c, r = 0, 0.0, x
    if size > HALF_LN2:
        k = math.floor(x * INV_LN2 + 0.5)
        hi, lo = x - k * LN2_HI, k * LN2_LO
        r = hi - lo
        c = (hi - r) - lo
    hfx = 0.5 * r
    hxs = r * hfx
    r1 = 1 + hxs * (Q1 + hxs * (Q2 + hxs * (Q3 + hxs * (Q4 + hxs * Q5))))
    t = 3 - r1 * hfx
    e = hxs * ((r1 - t) / (6 - r * t))
    if k == 0:
        return r - (r * e - hxs)
    e = r * (e - c) - c
    e -= hxs
    if k == -1:
        return 0.5 * (r - e) - 0.5
    if k == 1:
        return -2 * (e - (r + 0.5)) if r < -0.25 else 1 + 2 * (r - e)
    if k < 0 or k > 56:
        return _scaled(r - e + 1, k) - 1
    if k < 20:
        return (r - e + (1 - _two_to(-k))) * _two_to(k)
    return (r - (e + _two_to(-k)) + 1) * _two_to(k)


def tanh(x: float) -> float:
    """tanh x from expm1 (fdlibm s_tanh.c, musl's thresholds): odd, +-1 past
    |x| = 20."""
    size = abs(x)
    if x != x or size < MIN_NORMAL:
        return x
    if size > 20:
        t = 1.0
    elif size > HALF_LOG3:
        t = 1 - 2 / (expm1(2 * size) + 2)
    elif size > HALF_LOG5_3:
        u = expm1(2 * size)
        t = u / (u + 2)
    else:
        u = expm1(-2 * size)
        t = -u / (u + 2)
    return -t if x < 0 else t


def _exponent_of(x: float) -> int:
    """The k with 2^k <= x < 2^(k+1), for a finite x > 0 (subnormal too): a binary
    search of the powers of two."""
    low, high = MIN_POWER, MAX_POWER
    while low < high:
        middle = (low + high + 1) // 2
        if _two_to(middle) <= x:
            low = middle
        else:
            high = middle - 1
    return low


def _log_scaled(f: float, k: int, c: float) -> float:
    """k ln2 + log(1 + f) + c, for f in [sqrt(1/2) - 1, sqrt(2) - 1] and a small c:
    log(1 + f) = 2 atanh(s), s = f / (2 + f), an odd series in s whose tail fdlibm fits
    (s_log1p.c), written f - (f^2 / 2 - s (f^2 / 2 + R)) so that the error stays below
    an ulp."""
    hfsq = 0.5 * f * f
    s = f / (2 + f)
    z = s * s
    R = z * (LP1 + z * (LP2 + z * (LP3 + z * (LP4 + z * (LP5 + z * (LP6 + z * LP7))))))
    return k * LN2_HI - ((hfsq - (s * (hfsq + R) + (k * LN2_LO + c))) - f)


def _log_plus(x: float, c: float) -> float:
    """log x + c, for a finite x > 0 and a small c: x = 2^k m with m in
    [sqrt(1/2), sqrt(2)); dividing by a power of two whose quotient is normal is
    exact."""
    k = _exponent_of(x)
    m = x / _two_to(k)
    if m >= SQRT2:
        return _log_scaled(m / 2 - 1, k + 1, c)
    return _log_scaled(m - 1, k, c)


def log(x: float) -> float:
    """The natural logarithm as the page computes it (0: -inf, below 0: nan)."""
    if x != x or x == math.inf:
        return x
    if x == 0:
        return -math.inf
    if x < 0:
        return math.nan
    return _log_plus(x, 0.0)


def log1p(x: float) -> float:
    """log(1 + x), accurate near 0: u = 1 + x rounded, log(1 + x) = log(u) +
    ((1 + x) - u) / u, the rounding (1 + x) - u exact by Fast2Sum (Dekker 1971;
    fdlibm s_log1p.c)."""
    if x != x or x == math.inf:
        return x
    if x == -1:
        return -math.inf
    if x < -1:
        return math.nan
    size = abs(x)
    if size < _two_to(-29):
        return x if size < _two_to(-54) else x - x * x * 0.5
    if SQRT_HALF - 1 < x < SQRT2 - 1:
        return _log_scaled(x, 0, 0.0)
    if x >= TWO_53:
        return _log_plus(x, 0.0)
    u = 1 + x
    return _log_plus(u, (1 - (u - x) if u >= 2 else x - (u - 1)) / u)


def _cos_near_0(x: float, y: float) -> float:
    """cos(x + y) on [-pi/4, pi/4], y a tail below x's last bit (fdlibm k_cos.c)."""
    z = x * x
    w = z * z
    r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6))
    hz = 0.5 * z
    v = 1 - hz
    return v + (((1 - v) - hz) + (z * r - x * y))


def _sin_near_0(x: float, y: float) -> float:
    """sin(x + y) on [-pi/4, pi/4], y a tail below x's last bit (fdlibm k_sin.c)."""
    z = x * x
    w = z * z
    r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6)
    v = z * x
    return x - ((z * (0.5 * y - v * r) - y) - v * S1)


def _reduced(size: float, n: float) -> tuple[float, float]:
    """size - n pi/2 as (y0, y1) (y1 the tail), for size >= 0: a part of pi/2 at a
    time, the next part only where the difference came out 2^16 (then 2^49) times
    smaller than size, its leading bits lost to cancellation (Cody and Waite 1980;
    fdlibm e_rem_pio2.c's medium case)."""
    r, w = size - n * PIO2_1, n * PIO2_1T
    y0 = r - w
    for part, tail, bits in ((PIO2_2, PIO2_2T, -16), (PIO2_3, PIO2_3T, -49)):
        if not abs(y0) < size * _two_to(bits):
            break
        t = r
        w = n * part
        r = t - w
        w = n * tail - ((t - r) - w)
        y0 = r - w
    return y0, (r - y0) - w


def cos(x: float) -> float:
    """cos x as the page computes it (nan, +-inf: nan); even: cos x = cos |x|.
    Within about an ulp for |x| < 2^20 pi/2 (1.6e6: the trainers' arguments stay in
    [-2 pi, 2 pi]); beyond, n * PIO2_1 is no longer exact and the error grows with
    |x|, the same in every browser."""
    size = abs(x)
    if not size < math.inf:
        return math.nan
    if size <= PI_4:
        return _cos_near_0(size, 0.0)
    n = float(math.floor(size * INV_PIO2 + 0.5))
    y0, y1 = _reduced(size, n)
    quadrant = n % 4
    if quadrant == 0:
        return _cos_near_0(y0, y1)
    if quadrant == 1:
        return -_sin_near_0(y0, y1)
    if quadrant == 2:
        return -_cos_near_0(y0, y1)
    return _sin_near_0(y0, y1)


def _halves(a: float) -> tuple[float, float]:
    """a = high + low, high keeping a's upper 26 bits (Veltkamp's split: Dekker
    1971)."""
    c = SPLITTER * a
    high = c - (c - a)
    return high, a - high


def _exact_product(a: float, b: float) -> tuple[float, float]:
    """(p, e) with p = a * b rounded and p + e = a * b exactly (Dekker 1971)."""
    p = a * b
    ah, al = _halves(a)
    bh, bl = _halves(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _pair_product(
    first: tuple[float, float], second: tuple[float, float]
) -> tuple[float, float]:
    """(x + xe)(y + ye) as a pair (high, low) with |low| <= half high's ulp:
    double-double arithmetic, good to about 2^-104 relative."""
    x, xe = first
    y, ye = second
    p, e = _exact_product(x, y)
    tail = e + (x * ye + xe * y)
    high = p + tail
    return high, tail - (high - p)


def power(base: float, count: int) -> float:
    """base^count for an integer count >= 0 and |base| <= 1 (Adam's betas), within an
    ulp: binary powering (the bits of count from the lowest) in double-double, so that
    the roundings of count's many products do not add up; JavaScript's ** may round
    differently by engine."""
    result, square = (1.0, 0.0), (base, 0.0)
    rest = count
    while rest > 0:
        if rest % 2 == 1:
            result = _pair_product(result, square)
        if rest > 1:
            square = _pair_product(square, square)
        rest //= 2
    return result[0] + result[1]
