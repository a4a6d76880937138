// One More Round in the static page: the transcendental functions of the page's trainers
// (cell_model.js, act_model.js), computed the same way in every browser. ECMAScript
// lets Math.exp, Math.tanh, Math.log, Math.log1p, Math.cos and ** round differently in
// each engine, and a last bit that differs grows, step after step, into another run:
// a seed would train one model in Chrome and another in Firefox or Safari. IEEE 754
// rounds + - * / correctly, so alike in every engine; these are built from them,
// comparisons, Math.floor and Math.abs only, on fdlibm's algorithms and coefficients
// (Sun Microsystems 1993, as FreeBSD's msun and musl carry them). Each is within about
// one ulp of the true value (tanh about two); src/recur/core/exact_math.py is the same
// algorithm in Python, and tests/test_exact_math.py checks that the two agree bit for
// bit on the inputs it draws.
//
// exactMath() returns the functions. The trainers' Web Workers are made from the text of
// functions, so the worker's source includes this function's text too.
"use strict";

function exactMath() {
  // 2^k for k = MIN_POWER..MAX_POWER, every double power of two: doubling or halving a
  // power of two is exact.
  const MIN_POWER = -1074, MAX_POWER = 1023;
  const POWERS = new Float64Array(MAX_POWER - MIN_POWER + 1);
  POWERS[-MIN_POWER] = 1;
  for (let k = 1; k <= MAX_POWER; k++) POWERS[k - MIN_POWER] = POWERS[k - 1 - MIN_POWER] * 2;
  for (let k = -1; k >= MIN_POWER; k--) POWERS[k - MIN_POWER] = POWERS[k + 1 - MIN_POWER] / 2;
  const twoTo = (k) => POWERS[k - MIN_POWER];

  // ln 2 in two parts: LN2_HI's last 11 bits are zero, so k * LN2_HI is exact for
  // |k| < 2^11 (Cody and Waite 1980).
  const LN2_HI = 0.6931471803691238, LN2_LO = 1.908_214_929_270_587_7e-10;
  const INV_LN2 = 1.4426950408889634;
  const HALF_LN2 = 0.34657359027997264;
  const EXP_OVERFLOW = 709.782712893384; // exp above it: Infinity
  const EXP_UNDERFLOW = -745.1332191019411; // exp below it: 0
  const EXPM1_SATURATES = 38.816242111356935; // 56 ln 2: expm1 below -it is -1
  // fdlibm e_exp.c: exp(r) = 1 + r + r c / (2 - c), c = r - r^2 P(r^2)
  const P1 = 0.16666666666666602, P2 = -0.0027777777777015593;
  const P3 = 6.613_756_321_437_934e-05, P4 = -1.653_390_220_546_525_2e-06;
  const P5 = 4.138_136_797_057_238_5e-08;
  // fdlibm s_expm1.c: the scaled rational approximation's Q1..Q5
  const Q1 = -0.03333333333333313, Q2 = 0.0015873015872548146;
  const Q3 = -7.936_507_578_674_88e-05, Q4 = 4.008_217_827_329_362e-06;
  const Q5 = -2.010_992_181_836_243_7e-07;
  // fdlibm s_log1p.c: log(1 + f) = 2s + s R(s^2), s = f / (2 + f)
  const LP1 = 0.6666666666666735, LP2 = 0.3999999999940942, LP3 = 0.2857142874366239;
  const LP4 = 0.22222198432149784, LP5 = 0.1818357216161805, LP6 = 0.15313837699209373;
  const LP7 = 0.14798198605116586;
  const SQRT2 = 1.4142135623730951, SQRT_HALF = 0.7071067811865476;
  // fdlibm k_cos.c and k_sin.c: the even and odd polynomials on [-pi/4, pi/4]
  const C1 = 0.0416666666666666, C2 = -0.001388888888887411;
  const C3 = 2.480_158_728_947_673e-05, C4 = -2.755_731_435_139_066_3e-07;
  const C5 = 2.087_572_321_298_175e-09, C6 = -1.135_964_755_778_819_5e-11;
  const S1 = -0.16666666666666632, S2 = 0.00833333333332249, S3 = -0.0001984126982985795;
  const S4 = 2.755_731_370_707_006_8e-06, S5 = -2.505_076_025_340_686_3e-08;
  const S6 = 1.589_690_995_211_55e-10;
  // pi/2 in 33-bit parts and their tails (fdlibm e_rem_pio2.c): n * PIO2_1 is exact for
  // n < 2^20
  const INV_PIO2 = 0.6366197723675814, PI_4 = 0.7853981633974483;
  const PIO2_1 = 1.5707963267341256, PIO2_1T = 6.077_100_506_506_192e-11;
  const PIO2_2 = 6.077_100_506_303_966e-11, PIO2_2T = 2.022_266_248_795_950_6e-21;
  const PIO2_3 = 2.022_266_248_711_166_5e-21, PIO2_3T = 8.478_427_660_368_9e-32;
  const HALF_LOG3 = 0.5493061443340549, HALF_LOG5_3 = 0.25541281188299536;
  const MIN_NORMAL = twoTo(-1022), TWO_53 = twoTo(53);
  const SPLITTER = twoTo(27) + 1; // Veltkamp's: splits a double into two 26-bit halves

  // y * 2^k rounded once, for y near 1 and k in -1075..1024 (fdlibm e_exp.c's scaling).
  function scaled(y, k) {
    if (k > MAX_POWER) return y * 2 * twoTo(MAX_POWER);
    if (k < -1021) return y * twoTo(k + 1000) * twoTo(-1000);
    return y * twoTo(k);
  }

  // e^x as Math.exp answers it (NaN, +-Infinity, overflow and underflow included):
  // x = k ln2 + r, |r| <= ln2 / 2 (Cody and Waite 1980), e^x = 2^k e^r (fdlibm e_exp.c).
  function exp(x) {
    if (x !== x) return x;
    if (x > EXP_OVERFLOW) return Infinity;
    if (x < EXP_UNDERFLOW) return 0;
    if (Math.abs(x) < twoTo(-28)) return 1 + x;
    const k = Math.abs(x) <= HALF_LN2 ? 0 : Math.floor(x * INV_LN2 + 0.5);
    const hi = x - k * LN2_HI, lo = k * LN2_LO;
    const r = hi - lo;
    const t = r * r;
    const c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    if (k === 0) return 1 - ((r * c) / (c - 2) - r);
    return scaled(1 - ((lo - (r * c) / (2 - c)) - hi), k);
  }

  // e^x - 1, accurate near 0 too (fdlibm s_expm1.c): x = k ln2 + r + c, the reduction's
  // rounding c carried as a correction.
  function expm1(x) {
    if (x !== x) return x;
    const size = Math.abs(x);
    if (size >= EXPM1_SATURATES) {
      if (x < 0) return -1;
      if (x > EXP_OVERFLOW) return Infinity;
    }
    if (size < twoTo(-54)) return x;
    let k = 0, c = 0, r = x;
    if (size > HALF_LN2) {
      k = Math.floor(x * INV_LN2 + 0.5);
      const hi = x - k * LN2_HI, lo = k * LN2_LO;
      r = hi - lo;
      c = (hi - r) - lo;
    }
    const hfx = 0.5 * r, hxs = r * hfx;
    const r1 = 1 + hxs * (Q1 + hxs * (Q2 + hxs * (Q3 + hxs * (Q4 + hxs * Q5))));
    const t = 3 - r1 * hfx;
    let e = hxs * ((r1 - t) / (6 - r * t));
    if (k === 0) return r - (r * e - hxs);
    e = r * (e - c) - c;
    e -= hxs;
    if (k === -1) return 0.5 * (r - e) - 0.5;
    if (k === 1) return r < -0.25 ? -2 * (e - (r + 0.5)) : 1 + 2 * (r - e);
    if (k < 0 || k > 56) return scaled(r - e + 1, k) - 1;
    if (k < 20) return (r - e + (1 - twoTo(-k))) * twoTo(k);
    return (r - (e + twoTo(-k)) + 1) * twoTo(k);
  }

  // tanh x from expm1 (fdlibm s_tanh.c, musl's thresholds): odd, +-1 past |x| = 20.
  function tanh(x) {
    const size = Math.abs(x);
    if (x !== x || size < MIN_NORMAL) return x;
    let t;
    if (size > 20) t = 1;
    else if (size > HALF_LOG3) t = 1 - 2 / (expm1(2 * size) + 2);
    else if (size > HALF_LOG5_3) {
      const u = expm1(2 * size);
      t = u / (u + 2);
    } else {
      const u = expm1(-2 * size);
      t = -u / (u + 2);
    }
    return x < 0 ? -t : t;
  }

  // The k with 2^k <= x < 2^(k+1), for a finite x > 0 (subnormal too): a binary search
  // of the powers of two.
  function exponentOf(x) {
    let low = MIN_POWER, high = MAX_POWER;
    while (low < high) {
      const middle = Math.floor((low + high + 1) / 2);
      if (twoTo(middle) <= x) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  // k ln2 + log(1 + f) + c, for f in [sqrt(1/2) - 1, sqrt(2) - 1] and a small c:
  // log(1 + f) = 2 atanh(s), s = f / (2 + f), an odd series in s whose tail fdlibm fits
  // (s_log1p.c), written f - (f^2 / 2 - s (f^2 / 2 + R)) so that the error stays
  // below an ulp.
  function logScaled(f, k, c) {
    const hfsq = 0.5 * f * f;
    const s = f / (2 + f);
    const z = s * s;
    const R = z * (LP1 + z * (LP2 + z * (LP3 + z * (LP4 + z * (LP5 + z * (LP6 + z * LP7))))));
    return k * LN2_HI - ((hfsq - (s * (hfsq + R) + (k * LN2_LO + c))) - f);
  }

  // log x + c, for a finite x > 0 and a small c: x = 2^k m with m in [sqrt(1/2),
  // sqrt(2)); dividing by a power of two whose quotient is normal is exact.
  function logPlus(x, c) {
    const k = exponentOf(x), m = x / twoTo(k);
    return m >= SQRT2 ? logScaled(m / 2 - 1, k + 1, c) : logScaled(m - 1, k, c);
  }

  // The natural logarithm as Math.log answers it (0: -Infinity, below 0: NaN).
  function log(x) {
    if (x !== x || x === Infinity) return x;
    if (x === 0) return -Infinity;
    if (x < 0) return NaN;
    return logPlus(x, 0);
  }

  // log(1 + x), accurate near 0: u = 1 + x rounded, log(1 + x) = log(u) + ((1 + x) - u)
  // / u, the rounding (1 + x) - u exact by Fast2Sum (Dekker 1971; fdlibm s_log1p.c).
  function log1p(x) {
    if (x !== x || x === Infinity) return x;
    if (x === -1) return -Infinity;
    if (x < -1) return NaN;
    const size = Math.abs(x);
    if (size < twoTo(-29)) return size < twoTo(-54) ? x : x - x * x * 0.5;
    if (x > SQRT_HALF - 1 && x < SQRT2 - 1) return logScaled(x, 0, 0);
    if (x >= TWO_53) return logPlus(x, 0);
    const u = 1 + x;
    return logPlus(u, (u >= 2 ? 1 - (u - x) : x - (u - 1)) / u);
  }

  // cos and sin on [-pi/4, pi/4] of x + y, y a tail far below x's last bit (fdlibm
  // k_cos.c and k_sin.c).
  function cosNear0(x, y) {
    const z = x * x, w = z * z;
    const r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
    const hz = 0.5 * z, v = 1 - hz;
    return v + (((1 - v) - hz) + (z * r - x * y));
  }
  function sinNear0(x, y) {
    const z = x * x, w = z * z;
    const r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
    const v = z * x;
    return x - ((z * (0.5 * y - v * r) - y) - v * S1);
  }

  // size - n pi/2 as [y0, y1] (y1 the tail), for size >= 0: a part of pi/2 at a time,
  // the next part only where the difference came out 2^16 (then 2^49) times smaller
  // than size, its leading bits lost to cancellation (Cody and Waite 1980; fdlibm
  // e_rem_pio2.c's medium case).
  function reduced(size, n) {
    let r = size - n * PIO2_1, w = n * PIO2_1T;
    let y0 = r - w;
    if (Math.abs(y0) < size * twoTo(-16)) {
      let t = r;
      w = n * PIO2_2;
      r = t - w;
      w = n * PIO2_2T - ((t - r) - w);
      y0 = r - w;
      if (Math.abs(y0) < size * twoTo(-49)) {
        t = r;
        w = n * PIO2_3;
        r = t - w;
        w = n * PIO2_3T - ((t - r) - w);
        y0 = r - w;
      }
    }
    return [y0, (r - y0) - w];
  }

  // cos x as Math.cos answers it (NaN, +-Infinity: NaN); even: cos x = cos |x|.
  // Within about an ulp for |x| < 2^20 pi/2 (1.6e6: the trainers' arguments stay in
  // [-2pi, 2pi]); beyond, n * PIO2_1 is no longer exact and the error grows with |x|,
  // the same in every browser.
  function cos(x) {
    const size = Math.abs(x);
    if (!(size < Infinity)) return NaN;
    if (size <= PI_4) return cosNear0(size, 0);
    const n = Math.floor(size * INV_PIO2 + 0.5);
    const [y0, y1] = reduced(size, n);
    const quadrant = n % 4;
    if (quadrant === 0) return cosNear0(y0, y1);
    if (quadrant === 1) return -sinNear0(y0, y1);
    if (quadrant === 2) return -cosNear0(y0, y1);
    return sinNear0(y0, y1);
  }

  // a = high + low, high keeping a's upper 26 bits (Veltkamp's split: Dekker 1971).
  function halves(a) {
    const c = SPLITTER * a, high = c - (c - a);
    return [high, a - high];
  }

  // [p, e] with p = a * b rounded and p + e = a * b exactly (Dekker 1971).
  function exactProduct(a, b) {
    const p = a * b;
    const [ah, al] = halves(a), [bh, bl] = halves(b);
    return [p, ((ah * bh - p) + ah * bl + al * bh) + al * bl];
  }

  // (x + xe)(y + ye) as a pair [high, low] with |low| <= half high's ulp: double-double
  // arithmetic, good to about 2^-104 relative.
  function pairProduct([x, xe], [y, ye]) {
    const [p, e] = exactProduct(x, y);
    const tail = e + (x * ye + xe * y);
    const high = p + tail;
    return [high, tail - (high - p)];
  }

  // base^count for an integer count >= 0 and |base| <= 1 (Adam's betas), within an
  // ulp: binary powering (the bits of count from the lowest) in double-double, so that
  // the roundings of count's many products do not add up; ** may round differently by
  // engine.
  function power(base, count) {
    let result = [1, 0], square = [base, 0];
    for (let rest = count; rest > 0; rest = Math.floor(rest / 2)) {
      if (rest % 2 === 1) result = pairProduct(result, square);
      if (rest > 1) square = pairProduct(square, square);
    }
    return result[0] + result[1];
  }

  return { exp, expm1, tanh, log, log1p, cos, power };
}
