#!/usr/bin/env python3
"""Polynomial coefficients of the WGSL f32 math library (src/webgpu/kernels/common/math_f32.wgsl).

Every polynomial is a weighted minimax fit computed here with mpmath (Lawson's iteratively
reweighted least squares on a Chebyshev-distributed grid, 60 significant digits), then rounded
to f32 one coefficient at a time, lowest order first, refitting the remaining ones after each
rounding so that the rounding errors are partly absorbed. Printed: for each fit, the WGSL
polynomial as a WGSL function (Horner's scheme with fma) and the maximum weighted
error of the rounded polynomial on a dense grid, in units of 2^-24.

Usage: python3 tools/fit_math_f32.py [name ...]     (needs mpmath; about a minute in all)
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 60


def f32_round(v):
    # float(v) rounds to double, then pack rounds to f32: double rounding is harmless here
    # (coefficients are refitted anyway and the error is measured after rounding).
    return mp.mpf(struct.unpack('<f', struct.pack('<f', float(v)))[0])


def cheb_grid(a, b, n):
    return [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]


def lawson(xs, target, weight, nfree, fixed, basis, iters=60):
    """Minimax fit of target(x) ~ sum_j fixed_j basis_j(x) + sum_j c_j basis_{nf+j}(x),
    minimising max |weight(x) * error(x)|. `fixed` holds the already rounded low coefficients."""
    nfix = len(fixed)
    rows = []
    for x in xs:
        t = target(x) - sum(fixed[j] * basis(j, x) for j in range(nfix))
        w = weight(x)
        rows.append(([basis(nfix + j, x) * w for j in range(nfree)], t * w))
    lw = [mp.mpf(1) / len(xs)] * len(xs)
    coef = None
    for _ in range(iters):
        ata = mp.zeros(nfree, nfree)
        atb = mp.zeros(nfree, 1)
        for (r, t), l in zip(rows, lw):
            for i in range(nfree):
                ri = r[i] * l
                atb[i] += ri * t
                for j in range(i, nfree):
                    ata[i, j] += ri * r[j]
        for i in range(nfree):
            for j in range(i):
                ata[i, j] = ata[j, i]
        coef = mp.lu_solve(ata, atb)
        errs = [abs(t - sum(coef[i] * r[i] for i in range(nfree))) for (r, t) in rows]
        tot = sum(l * e for l, e in zip(lw, errs))
        lw = [l * e / tot for l, e in zip(lw, errs)]
    return [coef[i] for i in range(nfree)]


def fit(name, a, b, target, weight, degree, basis=None, npts=400, check=4000, exact0=False):
    """Fits coefficients c_0..c_degree of sum c_j basis_j(x); basis_j(x) = x^j by default.
    exact0: c_0 stays unrounded (the WGSL code adds it as hi + lo)."""
    if basis is None:
        def basis(j, x):
            return x ** j
    xs = cheb_grid(a, b, npts)
    fixed = []
    for k in range(degree + 1):
        c = lawson(xs, target, weight, degree + 1 - k, fixed, basis, iters=40 if k == 0 else 25)
        fixed.append(c[0] if (exact0 and k == 0) else f32_round(c[0]))
    grid = [a + (b - a) * i / (check - 1) for i in range(check)]
    err = max(abs(weight(x) * (target(x) - sum(fixed[j] * basis(j, x) for j in range(len(fixed)))))
              for x in grid)
    return fixed, err


def wgsl(v):
    s = repr(float(v))
    if 'e' in s:
        m, e = s.split('e')
        if '.' not in m:
            m += '.0'
        s = m + 'e' + e
    elif '.' not in s:
        s += '.0'
    return s


def show(name, coefs, err, note, exact0=False):
    """Prints the fit as a WGSL function (Horner's scheme with fma). exact0: the last step
    (times x, plus the constant coefficient as hi + lo) is exact, the result double-f32."""
    fn = 'tfr_m_poly_' + name[len('TFR_M_'):].lower()
    c = [wgsl(v) for v in reversed(coefs)]
    print(f'// {note}')
    print(f'// max weighted error {float(err * 2 ** 24):.4f} x 2^-24 (tools/fit_math_f32.py)')
    print(f'fn {fn}(x: f32) -> {"vec2<f32>" if exact0 else "f32"} {{')
    print(f'  var p = {c[0]};')
    for v in c[1:-1] if exact0 else c[1:]:
        print(f'  p = fma(p, x, {v});')
    if exact0:
        hi = f32_round(coefs[0])
        print('  let pv = tfr_m_two_prod(p, x);')
        print(f'  let s = tfr_m_fast_two_sum({wgsl(hi)}, pv.x);')
        print(f'  return vec2<f32>(s.x, s.y + (pv.y + {wgsl(f32_round(coefs[0] - hi))}));')
    else:
        print('  return p;')
    print('}')
    print()


def f32_hex(v):
    return struct.unpack('<I', struct.pack('<f', float(v)))[0]


def show_const(name, v, note):
    print(f'const {name}: f32 = bitcast<f32>(0x{f32_hex(v):08x}u);  // {mp.nstr(v, 12)}: {note}')


def constants():
    """Splits of constants into f32 pieces, and the bits of 2/pi."""
    def split(v, bits):
        # v rounded to `bits` significant bits (so that small integer multiples are exact).
        e = mp.floor(mp.log(abs(v), 2))
        q = mp.mpf(2) ** (e - bits + 1)
        return mp.nint(v / q) * q
    ln2 = mp.log(2)
    hi = split(ln2, 16)
    show_const('TFR_M_LN2_HI', hi, 'ln 2 to 16 bits')
    show_const('TFR_M_LN2_LO', f32_round(ln2 - hi), 'ln 2 - TFR_M_LN2_HI')
    show_const('TFR_M_LOG2E', f32_round(1 / ln2), '1 / ln 2')
    for name, v in (('PIO2', mp.pi / 2), ('PI', mp.pi), ('PIO4', mp.pi / 4),
                    ('C0', 2 / mp.sqrt(mp.pi))):
        h = f32_round(v)
        show_const(f'TFR_M_{name}_HI', h, f'{name} rounded to f32')
        show_const(f'TFR_M_{name}_LO', f32_round(v - h), f'{name} - TFR_M_{name}_HI')
    # Cody-Waite pieces of pi/2 for |k| < 2^9: three of 15 bits (k * P is exact
    # in f32 without fma) and a rounded fourth.
    rest = mp.pi / 2
    for i in range(1, 4):
        piece = split(rest, 15)
        show_const(f'TFR_M_PIO2_{i}', piece, f'pi/2 piece {i} (15 bits)')
        rest -= piece
    show_const('TFR_M_PIO2_4', f32_round(rest), 'pi/2 - P1 - P2 - P3')
    show_const('TFR_M_2OPI', f32_round(2 / mp.pi), '2 / pi')
    # Bits of 2/pi: word 0 is zero (bits -31..0), word n holds bits 32n-31 .. 32n
    # (bit i weighs 2^-i), most significant first.
    words = [0]
    frac = 2 / mp.pi
    for n in range(10):
        frac *= 2 ** 32
        w = int(mp.floor(frac))
        frac -= w
        words.append(w)
    hexw = [f'0x{w:08x}u' for w in words]
    print('const TFR_M_2OPI_BITS = array<u32, 11>(\n    ' + ', '.join(hexw[:6]) + ',\n    ' +
          ', '.join(hexw[6:]) + ');')


def main(only):
    if not only or 'constants' in only:
        with mp.workdps(100):
            constants()
    one = mp.mpf(1)
    fits = {}

    # exp: e^r = 1 + r + r^2 Q(r), |r| <= ln2/2. Weight: r^2 (the absolute error of the
    # correction term relative to e^r ~ 1).
    def exp_q(r):
        return (mp.exp(r) - 1 - r) / r ** 2 if r != 0 else mp.mpf(1) / 2
    h = mp.log(2) / 2 + mp.mpf(2) ** -12
    fits['TFR_M_EXP_Q'] = (lambda: fit('exp', -h, h, exp_q, lambda r: r * r / mp.exp(r), 4),
                           'e^r = 1 + r + r^2 Q(r), |r| <= ln2/2 (weight r^2 e^-r)')

    # log: log1p(f) = 2s + s R(z), s = f/(2+f), z = s^2 in [0, 0.0295], R(z) = z T(z).
    # T = 2/3 + z T2(z); fit T2 with weight z^2 relative to 2 (the size of the main term 2s/s).
    smax = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1) + mp.mpf(2) ** -10
    def log_t2(z):
        s = mp.sqrt(z)
        return ((2 * mp.atanh(s) - 2 * s) / (s * z) - mp.mpf(2) / 3) / z if z != 0 else mp.mpf(2) / 5
    fits['TFR_M_LOG_T2'] = (lambda: fit('log', mp.mpf(0), smax ** 2, log_t2, lambda z: z * z / 2, 3),
                            'log1p(f) = 2s + s z (2/3 + z T2(z)), s = f/(2+f) (weight z^2/2)')

    # sin(r) = r + r^3 S(z), cos(r) = 1 - z/2 + z^2 C(z), z = r^2, |r| <= pi/4 (+ slack).
    rmax = mp.pi / 4 + mp.mpf(2) ** -8
    def sin_s(z):
        r = mp.sqrt(z)
        return (mp.sin(r) - r) / (r * z) if z != 0 else -one / 6
    def cos_c(z):
        return (mp.cos(mp.sqrt(z)) - 1 + z / 2) / z ** 2 if z != 0 else one / 24
    fits['TFR_M_SIN_S'] = (lambda: fit('sin', mp.mpf(0), rmax ** 2, sin_s,
                                       lambda z: z / mp.sin(mp.sqrt(z)) * mp.sqrt(z) if z else 0, 4),
                           'sin r = r + r^3 S(r^2), |r| <= pi/4 (weight r^3 / sin r)')
    fits['TFR_M_COS_C'] = (lambda: fit('cos', mp.mpf(0), rmax ** 2, cos_c, lambda z: z * z / mp.cos(mp.sqrt(z)), 4),
                           'cos r = 1 - r^2/2 + r^4 C(r^2), |r| <= pi/4 (weight r^4 / cos r)')

    # tan(r) = r + r^3 T(z), |r| <= pi/4.
    def tan_t(z):
        r = mp.sqrt(z)
        return (mp.tan(r) - r) / (r * z) if z != 0 else one / 3
    fits['TFR_M_TAN_T'] = (lambda: fit('tan', mp.mpf(0), rmax ** 2, tan_t,
                                       lambda z: z * mp.sqrt(z) / mp.tan(mp.sqrt(z)) if z else 0, 9),
                           'tan r = r + r^3 T(r^2), |r| <= pi/4 (weight r^3 / tan r)')

    # Odd functions f(x) = x + x^3 P(x^2) on [0, xmax]: weight x^3 / f(x).
    def odd(name, fn, xmax, deg, c1):
        def tgt(z):
            x = mp.sqrt(z)
            return (fn(x) - x) / (x * z) if z != 0 else c1
        def w(z):
            x = mp.sqrt(z)
            return x * z / fn(x) if z != 0 else 0
        return lambda: fit(name, mp.mpf(0), mp.mpf(xmax) ** 2, tgt, w, deg)
    fits['TFR_M_ATAN_P'] = (odd('atan', mp.atan, 1, 10, -one / 3),
                            'atan t = t + t^3 P(t^2), 0 <= t <= 1')
    fits['TFR_M_ASIN_P'] = (odd('asin', mp.asin, mp.mpf(1) / 2 + mp.mpf(2) ** -10, 6, one / 6),
                            'asin x = x + x^3 P(x^2), 0 <= x <= 1/2')
    fits['TFR_M_TANH_P'] = (odd('tanh', mp.tanh, mp.mpf('0.625'), 6, -one / 3),
                            'tanh x = x + x^3 P(x^2), 0 <= x <= 0.625')
    fits['TFR_M_SINH_P'] = (odd('sinh', mp.sinh, 1, 5, one / 6),
                            'sinh x = x + x^3 P(x^2), 0 <= x <= 1')
    fits['TFR_M_ASINH_P'] = (odd('asinh', mp.asinh, mp.mpf(1) / 2, 7, -one / 6),
                             'asinh x = x + x^3 P(x^2), 0 <= x <= 1/2')
    fits['TFR_M_ATANH_P'] = (odd('atanh', mp.atanh, mp.mpf(1) / 2, 7, one / 3),
                             'atanh x = x + x^3 P(x^2), 0 <= x <= 1/2')

    # erf(x) = x (c0 + z Q(z)), z = x^2 <= 0.81; c0 = 2/sqrt(pi) in hi + lo outside the fit.
    c0 = 2 / mp.sqrt(mp.pi)
    def erf_q(z):
        x = mp.sqrt(z)
        return (mp.erf(x) / x - c0) / z if z != 0 else -c0 / 3
    fits['TFR_M_ERF_Q'] = (lambda: fit('erf', mp.mpf(0), mp.mpf('0.81'), erf_q,
                                       lambda z: z * mp.sqrt(z) / mp.erfc(mp.sqrt(z)) if z else 0, 8),
                           'erf x = x (2/sqrt(pi) + x^2 Q(x^2)), |x| <= 0.9 (weight x^3/erfc x: '
                           'erfc = 1 - erf too)')

    # erfc(x) = exp(-x^2) G(1/x) on [0.5, 10.1], G(u) = e^(x^2) erfc(x), fitted on pieces
    # (relative error) in the variable v = u - c, c the middle of the piece (u - c is exact):
    # the coefficients stay small and Horner's scheme does not cancel. The constant term
    # is kept as hi + lo.
    def erfc_g(u):
        x = 1 / u
        return mp.exp(x * x) * mp.erfc(x)
    for i, (lo, hi, deg, c) in enumerate([(mp.mpf(1) / mp.mpf('10.1'), mp.mpf(1) / 4, 9, '0.171875'),
                                          (mp.mpf(1) / 4, mp.mpf(1) / 2, 9, '0.375'),
                                          (mp.mpf(1) / 2, mp.mpf(1) / mp.mpf('0.9'), 11, '0.8125'),
                                          (mp.mpf(1) / mp.mpf('0.9'), mp.mpf(2), 12, '1.5')]):
        c = mp.mpf(c)
        fits[f'TFR_M_ERFC_G{i}'] = ((lambda lo=lo, hi=hi, deg=deg, c=c:
                                     fit('erfc', lo - c, hi - c, lambda v, c=c: erfc_g(v + c),
                                         lambda v, c=c: 1 / erfc_g(v + c), deg, exact0=True)),
                                    f'e^(x^2) erfc x as a polynomial in v = 1/x - {mp.nstr(c, 8)}, '
                                    f'1/x in [{float(lo):.6g}, {float(hi):.6g}]', True)

    # cbrt: first guess on [1, 8) (relative), refined by Newton steps.
    fits['TFR_M_CBRT_G'] = (lambda: fit('cbrt', mp.mpf(1), mp.mpf(8), mp.cbrt,
                                        lambda x: 1 / mp.cbrt(x), 3),
                            'first guess of cbrt on [1, 8]')

    for name, spec in fits.items():
        if only and name not in only:
            continue
        fn, note = spec[0], spec[1]
        coefs, err = fn()
        show(name, coefs, err, note, exact0=len(spec) > 2)
        sys.stdout.flush()


if __name__ == '__main__':
    main(set(sys.argv[1:]))
