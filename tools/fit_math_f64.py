#!/usr/bin/env python3
"""Constants of the WGSL f64 math library (src/webgpu/kernels/common/math_f64.wgsl).

The polynomials are truncated Taylor series, computed here with mpmath (60 digits) and rounded
to the nearest double; the script prints each constant as the WGSL vec2<u32>(low word, high
word) of its bits, with the truncation error of each series on its reduced interval:
  * exp:   expm1(r) = r + r^2 Q(r), Q(r) = sum_{j>=0} r^j / (j+2)!, |r| <= ln2/2 (+ slack);
  * log:   log(1+f) = f + s (R - f), s = f / (2 + f), R = z P(z), z = s^2,
           P(z) = sum_{j>=1} 2 z^(j-1) / (2j+1), |s| <= (sqrt2 - 1) / (sqrt2 + 1).
  * sinh:  sinh(a) = a + a z S(z), z = a^2, S(z) = sum_{j>=0} z^j / (2j+3)!, |a| < 1;
  * tanh:  tanh(a) = a + a z T(z), T from tanh's Taylor series, |a| < 0.55;
  * sin:   sin(a) = a + a z S(z), S(z) = sum_{j>=0} (-1)^(j+1) z^j / (2j+3)!, |a| <= pi/4;
  * cos:   cos(a) = 1 - z/2 + z^2 C(z), C(z) = sum_{j>=0} (-1)^j z^j / (2j+4)!, |a| <= pi/4;
  * atan:  atan(u) = u + u z A(z), A(z) = sum_{j>=0} (-1)^(j+1) z^j / (2j+3), |u| <= 1/16,
           and atan(j/8) for j = 0..8, pi/2 and pi, each as a double and its remainder;
  * erf:   erf(x) = x (c + z P(z)), z = x^2, c = 2/sqrt(pi) as a double and its remainder,
           P(z) = sum_{n>=1} c (-1)^n z^(n-1) / (n! (2n+1)), |x| < 1 (Taylor);
and the splitting constants (ln2 as a double and its remainder, 1/ln2, 1.5 * 2^52), and for
the argument reduction of sin, cos and tan the bits of 2/pi (32 a word, the most significant
first: word j holds the bits 2^-(32j+1) .. 2^-(32j+32) of the fraction) and pi/2 * 2^63 (rounded) as a
64-bit integer.

With the argument `erfc` it prints instead the tables of common/math_f64_erf.wgsl: erfcx(x) =
exp(x^2) erfc(x) on [0.5, 28) as polynomials in u = x - c on ERFC_INTERVALS (c each interval's
midpoint), each the Chebyshev fit (mpmath.chebyfit) with the fewest coefficients whose
estimated relative error is below 2^-60, highest first, rounded to doubles, the constant term
as a double and its remainder (two entries).

With the argument `pow` it prints the table of common/math_f64_pow.wgsl: for c = j/128, j =
POW_J0 .. POW_J1 (the grid points of [sqrt(1/2), sqrt(2)), where pow's log takes x = 2^k m),
log(c) as a multiple of 2^-43 (its high part: k ln2_hi + that is exact for every k of a
double) and the double nearest its remainder; and ln2 as a multiple of 2^-42 (ln2_hi, exact
times any such k) and the double nearest its remainder (ln2_lo), entries of the machine's
constant table.

With the argument `exp` it prints the constants of common/exp_f64.wgsl, the fixed-point exp:
ln2/256 * 2^104 as a 96-bit integer, 256/ln2 and the series' small coefficients as f32 bits,
2^34/6, and the table of 2^(j/256) * 2^62 (j = 0 .. 255), each rounded to the nearest integer.

Usage: python3 tools/fit_math_f64.py [erfc | pow | exp]
"""
import struct

import mpmath as mp

mp.mp.dps = 60


def bits(v):
    return struct.unpack('<Q', struct.pack('<d', float(v)))[0]


def wgsl(v):
    b = bits(v)
    return 'vec2<u32>(0x%08xu, 0x%08xu)' % (b & 0xffffffff, b >> 32)


def show(name, v):
    print('  %s,  // %s %s' % (wgsl(v), name, mp.nstr(v, 20)))


def main():
    ln2 = mp.log(2)
    ln2_d = mp.mpf(float(ln2))
    print('// splitting constants')
    show('ln2', ln2_d)
    show('ln2 - ln2_d', ln2 - ln2_d)
    show('1/ln2', 1 / ln2)
    # exp: Q(r) with N_EXP coefficients, highest first (Horner order)
    n_exp = 12
    rmax = ln2 / 2 * mp.mpf('1.0001')
    q = [1 / mp.factorial(j + 2) for j in range(n_exp)]
    trunc = rmax ** (n_exp + 2) / mp.factorial(n_exp + 2) * mp.e ** rmax
    print('// exp: Q, %d coefficients, highest first; truncation %s (2^%.1f) of exp(r) >= %s'
          % (n_exp, mp.nstr(trunc, 5), float(mp.log(trunc, 2)), mp.nstr(mp.e ** -rmax, 5)))
    for j in reversed(range(n_exp)):
        show('1/%d!' % (j + 2), q[j])
    # log: P(z) with N_LOG coefficients, highest first
    n_log = 10
    smax = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)
    zmax = smax ** 2
    p = [mp.mpf(2) / (2 * j + 1) for j in range(1, n_log + 1)]
    # the first term left out of s R, relative to log(1+f) ~ 2s
    trunc = zmax ** (n_log + 1) / (2 * n_log + 3)
    print('// log: P, %d coefficients, highest first; truncation %s (2^%.1f) relative'
          % (n_log, mp.nstr(trunc, 5), float(mp.log(trunc, 2))))
    for j in reversed(range(n_log)):
        show('2/%d' % (2 * j + 3), p[j])
    # sinh: S(z) with N_SINH coefficients, highest first
    n_sinh = 9
    trunc = mp.mpf(1) / mp.factorial(2 * n_sinh + 3)
    print('// sinh: S, %d coefficients, highest first; truncation %s (2^%.1f) relative'
          % (n_sinh, mp.nstr(trunc, 5), float(mp.log(trunc, 2))))
    for j in reversed(range(n_sinh)):
        show('1/%d!' % (2 * j + 3), 1 / mp.factorial(2 * j + 3))
    # tanh: T(z) with N_TANH coefficients, highest first
    n_tanh = 18
    amax = mp.mpf('0.55')
    tay = mp.taylor(mp.tanh, 0, 2 * n_tanh + 3)
    trunc = abs(tay[2 * n_tanh + 3]) * amax ** (2 * n_tanh + 2)
    print('// tanh: T, %d coefficients, highest first; truncation %s (2^%.1f) relative'
          % (n_tanh, mp.nstr(trunc, 5), float(mp.log(trunc, 2))))
    for j in reversed(range(n_tanh)):
        show('a^%d' % (2 * j + 3), tay[2 * j + 3])
    # sin and cos on |a| <= pi/4: S(z), C(z), highest first
    amax = mp.pi / 4
    n_sin = 9
    trunc = amax ** (2 * n_sin + 2) / mp.factorial(2 * n_sin + 3) / mp.sin(amax) * amax
    print('// sin: S, %d coefficients, highest first; truncation %s (2^%.1f) relative'
          % (n_sin, mp.nstr(trunc, 5), float(mp.log(trunc, 2))))
    for j in reversed(range(n_sin)):
        show('(-1)^%d/%d!' % (j + 1, 2 * j + 3), (-1) ** (j + 1) / mp.factorial(2 * j + 3))
    n_cos = 9
    trunc = amax ** (2 * n_cos + 4) / mp.factorial(2 * n_cos + 4) / mp.cos(amax)
    print('// cos: C, %d coefficients, highest first; truncation %s (2^%.1f) relative'
          % (n_cos, mp.nstr(trunc, 5), float(mp.log(trunc, 2))))
    for j in reversed(range(n_cos)):
        show('(-1)^%d/%d!' % (j, 2 * j + 4), (-1) ** j / mp.factorial(2 * j + 4))
    show('-1/2', mp.mpf(-0.5))
    show('pi/4', mp.pi / 4)
    # atan on |u| <= 1/16 (+ slack): A(z), highest first; the breakpoints
    n_atan = 8
    umax = mp.mpf(1) / 16 * mp.mpf('1.001')
    trunc = umax ** (2 * n_atan + 2) / (2 * n_atan + 3)
    print('// atan: A, %d coefficients, highest first; truncation %s (2^%.1f) relative'
          % (n_atan, mp.nstr(trunc, 5), float(mp.log(trunc, 2))))
    for j in reversed(range(n_atan)):
        show('(-1)^%d/%d' % (j + 1, 2 * j + 3), mp.mpf((-1) ** (j + 1)) / (2 * j + 3))
    print('// atan(j/8), j = 0..8, then 0, pi/2 and pi: each a double and its remainder')
    for v, name in [(mp.atan(mp.mpf(j) / 8), 'atan(%d/8)' % j) for j in range(9)] + \
            [(mp.mpf(0), '0'), (mp.pi / 2, 'pi/2'), (mp.pi, 'pi')]:
        hi = mp.mpf(float(v))
        show(name, hi)
        show(name + ' - hi', v - hi)
    # the reduction: 2/pi to 37 words (1184 bits: the window of the largest
    # finite argument ends at word 36), pi/2 * 2^63 rounded
    with mp.workdps(420):
        words = int(mp.floor(2 / mp.pi * mp.mpf(2) ** (32 * 37)))
        c = int(mp.nint(mp.pi / 2 * mp.mpf(2) ** 63))
    w = ['0x%08xu' % ((words >> (32 * (36 - j))) & 0xffffffff) for j in range(37)]
    print('// 2/pi, 37 words, the most significant first')
    for i in range(0, 37, 6):
        print('  ' + ', '.join(w[i:i + 6]) + ',')
    print('// pi/2 * 2^63 rounded: vec2<u32>(0x%08xu, 0x%08xu)' % (c & 0xffffffff, c >> 32))
    # erf on |x| < 1: x (c_hi + (c_lo + z P(z)))
    n_erf = 18
    c = 2 / mp.sqrt(mp.pi)
    c_hi = mp.mpf(float(c))
    trunc = c / (mp.factorial(n_erf + 1) * (2 * n_erf + 3)) / mp.erf(1)
    print('// erf: 2/sqrt(pi) and its remainder, then P, %d coefficients, highest first; '
          'truncation %s (2^%.1f) relative' % (n_erf, mp.nstr(trunc, 5), float(mp.log(trunc, 2))))
    show('2/sqrt(pi)', c_hi)
    show('2/sqrt(pi) - hi', c - c_hi)
    for n in reversed(range(1, n_erf + 1)):
        show('c (-1)^%d / (%d! %d)' % (n, n, 2 * n + 1),
             c * (-1) ** n / (mp.factorial(n) * (2 * n + 1)))


# erfcx's intervals: [ERFC_INTERVALS[i], ERFC_INTERVALS[i + 1]).
ERFC_INTERVALS = ['0.5', '0.75', '1', '1.25', '1.5', '1.75', '2', '2.5', '3', '3.5', '4', '5',
                  '6', '7', '8', '10', '12', '14', '16', '20', '24', '28']


def erfc_tables():
    def erfcx(x):
        return mp.erfc(x) * mp.exp(x * x)
    edges = [mp.mpf(e) for e in ERFC_INTERVALS]
    coef, start, centers, worst = [], [], [], 0
    for a, b in zip(edges, edges[1:]):
        c, h = (a + b) / 2, (b - a) / 2
        for n in range(6, 40):
            poly, err = mp.chebyfit(lambda u: erfcx(c + u), [-h, h], n, error=True)
            if err / erfcx(b) < mp.mpf(2) ** -60:
                break
        worst = max(worst, err / erfcx(b))
        start.append(len(coef))
        centers.append(c)
        # the constant term as a double and its remainder
        hi = mp.mpf(float(poly[-1]))
        coef += poly[:-1] + [hi, poly[-1] - hi]
    start.append(len(coef))
    print('// generated by tools/fit_math_f64.py erfc: %d intervals, %d coefficients,\n'
          '// largest estimated relative error 2^%.1f' % (len(centers), len(coef),
                                                            float(mp.log(worst, 2))))
    print('const TFR_M64_ERFC_INTERVALS = %du;' % len(centers))
    print('const TFR_M64_ERFC_EDGE = array<vec2<u32>, %d>(' % len(edges))
    for e in edges:
        show('', e)
    print(');')
    print('// minus each interval\'s midpoint')
    print('const TFR_M64_ERFC_MID = array<vec2<u32>, %d>(' % len(centers))
    for c in centers:
        show('', -c)
    print(');')
    print('// each interval\'s first coefficient, then the end')
    items = ['%du' % v for v in start]
    print('const TFR_M64_ERFC_START = array<u32, %d>(' % len(start))
    for k in range(0, len(items), 12):
        print('  ' + ', '.join(items[k:k + 12]) + ',')
    print(');')
    print('const TFR_M64_ERFC_COEF = array<vec2<u32>, %d>(' % len(coef))
    for i, v in enumerate(coef):
        show('%d' % i, v)
    print(');')


# pow's table: c = j / 128 for j in [POW_J0, POW_J1], round(128 m) for m in [sqrt(1/2), sqrt(2)).
POW_J0, POW_J1 = 90, 181


def pow_tables():
    def split(v, bits):
        hi = mp.floor(v * 2 ** bits + mp.mpf('0.5')) / 2 ** bits
        return hi, v - hi
    ln2_hi, ln2_lo = split(mp.log(2), 42)
    print('// pow\'s ln2 in the machine\'s constant table')
    show('ln2_hi (a multiple of 2^-42)', ln2_hi)
    show('ln2_lo', ln2_lo)
    n = POW_J1 - POW_J0 + 1
    print('// generated by tools/fit_math_f64.py pow: log(j/128) for j = %d .. %d, as a\n'
          '// multiple of 2^-43 and the double nearest the remainder' % (POW_J0, POW_J1))
    print('const TFR_M64_POW_J0 = %du;' % POW_J0)
    print('const TFR_M64_POW_LOGC = array<vec2<u32>, %d>(' % (2 * n))
    for j in range(POW_J0, POW_J1 + 1):
        hi, lo = split(mp.log(mp.mpf(j) / 128), 43)
        assert mp.mpf(float(hi)) == hi
        show('log(%d/128)' % j, hi)
        show('', lo)
    print(');')


def f32_bits(v):
    return struct.unpack('<I', struct.pack('<f', float(v)))[0]


def exp_tables():
    """The constants of common/exp_f64.wgsl (fixed-point exp: x = k ln2/256 + r)."""
    ln2 = mp.log(2)
    c = int(mp.nint(ln2 / 256 * mp.mpf(2) ** 104))
    assert c < 2 ** 96
    print('// generated by tools/fit_math_f64.py exp')
    print('// ln2/256 * 2^104 rounded, three words, the least significant first')
    print('const TFR_EXP_F64_C = vec3<u32>(0x%08xu, 0x%08xu, 0x%08xu);'
          % (c & 0xffffffff, (c >> 32) & 0xffffffff, c >> 64))
    print('// 256/ln2, 1/24, 1/120, 2^-40, 2^34 and 2^-32 as f32 bits')
    for name, v in (('INV', 256 / ln2), ('K24', mp.mpf(1) / 24), ('K120', mp.mpf(1) / 120),
                    ('TWO_M40', mp.mpf(2) ** -40), ('TWO_34', mp.mpf(2) ** 34),
                    ('TWO_M32', mp.mpf(2) ** -32)):
        print('const TFR_EXP_F64_%s = 0x%08xu;' % (name, f32_bits(v)))
    print('// 2^34 / 6 rounded')
    print('const TFR_EXP_F64_Z6 = 0x%08xu;' % int(mp.nint(mp.mpf(2) ** 34 / 6)))
    print('// 2^(j/256) * 2^62 rounded, j = 0 .. 255, as vec2<u32>(low word, high word)')
    print('const TFR_EXP_F64_T = array<vec2<u32>, 256>(')
    for j in range(256):
        t = int(mp.nint(mp.power(2, mp.mpf(j) / 256) * mp.mpf(2) ** 62))
        print('  vec2<u32>(0x%08xu, 0x%08xu),  // %d' % (t & 0xffffffff, t >> 32, j))
    print(');')


if __name__ == '__main__':
    import sys
    if sys.argv[1:] == ['exp']:
        exp_tables()
    elif sys.argv[1:] == ['erfc']:
        erfc_tables()
    elif sys.argv[1:] == ['pow']:
        pow_tables()
    else:
        main()
