package org.fdbresolver.harness.retention;

import java.util.Arrays;

/**
 * One line of a plot, kept in constant memory however long the trace: points fall into at most
 * {@code buckets} buckets of consecutive points; when all are used, neighbours merge and each bucket takes
 * twice as many points. A bucket keeps the first x and the smallest and largest y, so the drawn line keeps
 * every peak and trough (a sawtooth stays a sawtooth) at any trace length.
 */
public final class PlotSeries {
    private final int buckets;
    private final double[] x;
    private final double[] min;
    private final double[] max;
    private int count;
    private long perBucket = 1;
    private long inLast;

    public PlotSeries(int buckets) {
        if (buckets < 2 || buckets % 2 != 0) {
            throw new IllegalArgumentException("buckets must be even and at least 2: " + buckets);
        }
        this.buckets = buckets;
        this.x = new double[buckets];
        this.min = new double[buckets];
        this.max = new double[buckets];
    }

    public void add(double px, double py) {
        if (count > 0 && inLast < perBucket) {
            int i = count - 1;
            min[i] = Math.min(min[i], py);
            max[i] = Math.max(max[i], py);
            inLast++;
            return;
        }
        if (count == buckets) {
            halve();
        }
        x[count] = px;
        min[count] = py;
        max[count] = py;
        count++;
        inLast = 1;
    }

    private void halve() {
        for (int i = 0; i < buckets / 2; i++) {
            x[i] = x[2 * i];
            min[i] = Math.min(min[2 * i], min[2 * i + 1]);
            max[i] = Math.max(max[2 * i], max[2 * i + 1]);
        }
        count = buckets / 2;
        perBucket *= 2;
        inLast = perBucket; // the last bucket is complete
    }

    public boolean isEmpty() {
        return count == 0;
    }

    /** The x of the points to draw: each bucket once, or twice (its minimum then its maximum) when they differ. */
    public double[] xs() {
        return points(true);
    }

    /** The y of the points to draw, matching {@link #xs()}. */
    public double[] ys() {
        return points(false);
    }

    private double[] points(boolean wantX) {
        double[] out = new double[2 * count];
        int n = 0;
        for (int i = 0; i < count; i++) {
            out[n++] = wantX ? x[i] : min[i];
            if (max[i] != min[i]) {
                out[n++] = wantX ? x[i] : max[i];
            }
        }
        return Arrays.copyOf(out, n);
    }
}
