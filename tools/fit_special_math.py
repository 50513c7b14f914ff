#!/usr/bin/env python3
"""Derives the constants of tenferro's special functions (lgamma, digamma,
bessel_i1e) with mpmath: src/cpu/special_math.h (f64) and
src/webgpu/kernels/common/math_special_f32.wgsl (f32).

  python3 tools/fit_special_math.py c      # C arrays (double)
  python3 tools/fit_special_math.py wgsl   # WGSL arrays (f32)

Every constant is a Taylor or asymptotic-series coefficient computed from its
definition at 60 digits (no fitted polynomials):
  * L1[k]: lgamma(1 + t) = sum_{k>=1} L1[k-1] t^k, L1 = -gamma, then
    (-1)^k zeta(k) / k.
  * L2[k]: lgamma(2 + t) = sum_{k>=1} L2[k-1] t^k, L2 = 1 - gamma, then
    (-1)^k (zeta(k) - 1) / k (radius of convergence 2).
  * PSI[k]: digamma(x0 + t) = sum_{k>=1} PSI[k-1] t^k about the positive root
    x0 = 1.4616321449683623...: PSI[k-1] = psi^(k)(x0) / k!
    = (-1)^(k+1) zeta(k + 1, x0) (radius x0). X0 = hi + lo.
  * LM[k]: lgamma(x0 + t) = LGM + sum_{k>=0} LM[k] t^(k+2), LM[k] = PSI[k] / (k + 2)
    (x0 is also where lgamma is smallest); LGM = lgamma(x0) = hi + lo.
  * D2[k]: digamma(2 + t) = sum_{k>=0} D2[k] t^k, D2[k] = (k + 1) L2[k].
  * STIR[k]: lgamma(x) = (x - 1/2) log x - x + log(2 pi)/2 + sum STIR[k] / x^(2k+1),
    STIR[k] = B_(2k+2) / ((2k+2)(2k+1)).
  * PSIA[k]: digamma(x) = log x - 1/(2x) - sum PSIA[k] / x^(2k+2),
    PSIA[k] = B_(2k+2) / (2k+2).
"""
import sys
import mpmath as mp

mp.mp.dps = 60


def coeffs(n64, n32):
    g = mp.euler
    L1 = [-g] + [(-1) ** k * mp.zeta(k) / k for k in range(2, 61)]
    L2 = [1 - g] + [(-1) ** k * (mp.zeta(k) - 1) / k for k in range(2, 61)]
    x0 = mp.findroot(mp.digamma, 1.46)
    PSI = [(-1) ** (k + 1) * mp.zeta(k + 1, x0) for k in range(1, 61)]
    LM = [PSI[k] / (k + 2) for k in range(0, 59)]
    D2 = [(k + 1) * L2[k] for k in range(0, 60)]
    STIR = [mp.bernoulli(2 * k + 2) / ((2 * k + 2) * (2 * k + 1)) for k in range(0, 12)]
    PSIA = [mp.bernoulli(2 * k + 2) / (2 * k + 2) for k in range(0, 12)]
    return dict(L1=L1, L2=L2, PSI=PSI, LM=LM, D2=D2, STIR=STIR, PSIA=PSIA), x0


# How many terms each precision needs (the series' truncation error is far
# below the format's unit roundoff on the intervals the code uses).
N = {"c": dict(L1=30, L2=42, PSI=40, LM=34, D2=42, STIR=9, PSIA=9),
     "wgsl": dict(L1=14, L2=20, PSI=18, LM=14, D2=20, STIR=4, PSIA=4)}


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "c"
    cs, x0 = coeffs(0, 0)
    if kind == "c":
        hi = float(x0)
        lo = float(x0 - mp.mpf(hi))
        print("#define TFR_SM_PSI_X0_HI %r" % hi)
        print("#define TFR_SM_PSI_X0_LO %r" % lo)
        g = mp.loggamma(x0)
        print("#define TFR_SM_LGM_HI %r" % float(g))
        print("#define TFR_SM_LGM_LO %r" % float(g - mp.mpf(float(g))))
        for name, n in N["c"].items():
            vals = ", ".join("%r" % float(v) for v in cs[name][:n])
            print("static const double tfr_sm_%s_f64[%d] = {%s};" % (name.lower(), n, vals))
    else:
        import struct
        f32 = lambda v: struct.unpack("<f", struct.pack("<f", float(v)))[0]
        hi = f32(x0)
        lo = f32(x0 - mp.mpf(hi))
        print("const TFR_MS_PSI_X0_HI: f32 = %.9g;" % hi)
        print("const TFR_MS_PSI_X0_LO: f32 = %.9g;" % lo)
        g = mp.loggamma(x0)
        print("const TFR_MS_LGM_HI: f32 = %.9g;" % f32(g))
        print("const TFR_MS_LGM_LO: f32 = %.9g;" % f32(g - mp.mpf(f32(g))))
        for name, n in N["wgsl"].items():
            vals = ", ".join("%.9g" % f32(v) for v in cs[name][:n])
            print("const TFR_MS_%s = array<f32, %d>(%s);" % (name, n, vals))


if __name__ == "__main__":
    main()
