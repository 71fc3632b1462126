package org.fdbresolver.harness.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PlotSeriesTest {

    @Test
    void aLongSeriesKeepsItsExtremesInBoundedPoints() {
        PlotSeries s = new PlotSeries(64);
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < 100_000; i++) {
            double y = (i % 977) + (i == 51_234 ? 5_000 : 0); // a sawtooth with one spike
            min = Math.min(min, y);
            max = Math.max(max, y);
            s.add(i * 0.5, y);
        }
        double[] xs = s.xs();
        double[] ys = s.ys();
        assertEquals(xs.length, ys.length);
        assertTrue(xs.length <= 128, "at most two points per bucket: " + xs.length);
        assertEquals(0.0, xs[0]);
        assertEquals(min, Arrays.stream(ys).min().orElseThrow());
        assertEquals(max, Arrays.stream(ys).max().orElseThrow(), "the spike survives");
        for (int i = 1; i < xs.length; i++) {
            assertTrue(xs[i] >= xs[i - 1]);
        }
    }

    @Test
    void aShortSeriesIsKeptAsItIs() {
        PlotSeries s = new PlotSeries(64);
        for (int i = 0; i < 10; i++) {
            s.add(i, i * i);
        }
        assertEquals(10, s.xs().length);
        assertEquals(81.0, s.ys()[9]);
    }
}
