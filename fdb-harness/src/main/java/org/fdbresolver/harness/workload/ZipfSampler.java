package org.fdbresolver.harness.workload;

/**
 * Zipf-distributed ranks over a range too large for a table of cumulative weights: rank {@code r} in
 * {@code [0, n)} has weight {@code 1/(r+1)^s}. Rejection-inversion sampling (Hörmann and Derflinger, "Rejection-
 * inversion to generate variates from monotone discrete distributions", 1996), as Apache Commons' Zipf sampler
 * does it: a draw costs a few {@code StrictMath} calls and almost never a second uniform, whatever {@code n}. An
 * exponent of 0 is the uniform draw, with no floating point. All arithmetic goes through {@code StrictMath}, so a
 * seed gives the same ranks on every JVM.
 */
final class ZipfSampler {
    private final long n;
    private final double s;
    private final double hIntegralX1;
    private final double hIntegralN;
    private final double squeeze;

    ZipfSampler(long n, double s) {
        if (n < 1 || !(s >= 0)) {
            throw new IllegalArgumentException("Zipf over " + n + " ranks with exponent " + s);
        }
        this.n = n;
        this.s = s;
        this.hIntegralX1 = hIntegral(1.5) - 1.0;
        this.hIntegralN = hIntegral(n + 0.5);
        this.squeeze = 2.0 - hIntegralInverse(hIntegral(2.5) - h(2));
    }

    /** A rank in {@code [0, n)}; rank 0 is the most likely. */
    long next(SplitMix64 rng) {
        if (s == 0) {
            return rng.nextLong(n);
        }
        while (true) {
            double u = hIntegralN + rng.nextDouble() * (hIntegralX1 - hIntegralN);
            double x = hIntegralInverse(u);
            long k = Math.clamp((long) (x + 0.5), 1, n);
            // Accept at once inside the squeeze, else compare with the exact area of k's bar.
            if (k - x <= squeeze || u >= hIntegral(k + 0.5) - h(k)) {
                return k - 1;
            }
        }
    }

    /** {@code H(x) = ((x^(1-s)) - 1) / (1 - s)}, written to stay exact as {@code s} nears 1 (then {@code log x}). */
    private double hIntegral(double x) {
        double logX = StrictMath.log(x);
        return expm1OverX((1.0 - s) * logX) * logX;
    }

    /** The weight {@code x^-s}. */
    private double h(double x) {
        return StrictMath.exp(-s * StrictMath.log(x));
    }

    private double hIntegralInverse(double x) {
        double t = Math.max(-1.0, x * (1.0 - s));
        return StrictMath.exp(log1pOverX(t) * x);
    }

    private static double log1pOverX(double x) {
        return Math.abs(x) > 1e-8 ? StrictMath.log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - x * 0.25));
    }

    private static double expm1OverX(double x) {
        return Math.abs(x) > 1e-8 ? StrictMath.expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + x * 0.25));
    }
}
