package org.fdbresolver.harness.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;

/**
 * The retention plots of a short trace (issue 19): round x ticks, not one per batch at odd values, and the
 * trace window inside the plot unless it would flatten every other line.
 */
class RetentionPlotsTest {
    /** 60 batches 1/32 s apart, as a short longtrace gives: equally spaced times. */
    private static final int BATCHES = 60;
    private static final double STEP = 1 / 32.0;

    private static RetentionPlots.BudgetLines budget(double ageCap) {
        PlotSeries age = new PlotSeries(4096);
        PlotSeries history = new PlotSeries(4096);
        for (int i = 0; i < BATCHES; i++) {
            double t = i * STEP;
            age.add(t, Math.min(t, ageCap));
            history.add(t, 1 << 20);
        }
        return new RetentionPlots.BudgetLines("4 MiB", 4 << 20, age, history, Double.NaN);
    }

    private static PlotSeries window(double slope) {
        PlotSeries w = new PlotSeries(4096);
        for (int i = 0; i < BATCHES; i++) {
            w.add(i * STEP, slope * i * STEP);
        }
        return w;
    }

    /**
     * The x axis's tick labels as XChart lays them out when it draws. XChart keeps its axes package-private;
     * reflection reads what the PNG shows without comparing pixels.
     */
    private static List<String> xTickLabels(XYChart chart) throws Exception {
        BitmapEncoder.getBufferedImage(chart); // lays the chart out
        Method getXAxis = Class.forName("org.knowm.xchart.internal.chartpart.Chart").getDeclaredMethod("getXAxis");
        getXAxis.setAccessible(true);
        Object axis = getXAxis.invoke(chart);
        Object calculator = axis.getClass().getMethod("getAxisTickCalculator").invoke(axis);
        Method labels = Class.forName("org.knowm.xchart.internal.chartpart.AxisTickCalculator").getMethod("getTickLabels");
        @SuppressWarnings("unchecked")
        List<String> result = new ArrayList<>((List<String>) labels.invoke(calculator));
        return result;
    }

    /** Every label a multiple of one step of 1, 2 or 5 times a power of ten. */
    private static void assertRound(List<String> labels) {
        assertTrue(labels.size() >= 3 && labels.size() <= 25, labels::toString);
        double step = Double.parseDouble(labels.get(1).replace(",", "")) - Double.parseDouble(labels.get(0).replace(",", ""));
        double magnitude = Math.pow(10, Math.floor(Math.log10(step)));
        double mantissa = step / magnitude;
        assertTrue(Math.abs(mantissa - 1) < 1e-6 || Math.abs(mantissa - 2) < 1e-6 || Math.abs(mantissa - 5) < 1e-6,
                "step " + step + " in " + labels);
        for (String label : labels) {
            double v = Double.parseDouble(label.replace(",", ""));
            assertTrue(Math.abs(v / step - Math.rint(v / step)) < 1e-6, label + " is no multiple of " + step + " in " + labels);
        }
    }

    @Test
    void aShortTraceGetsRoundTicksOnBothPlots() throws Exception {
        double traceSeconds = (BATCHES - 1) * STEP;
        List<String> age = xTickLabels(RetentionPlots.retainedAgeChart("t", "tree", List.of(budget(1.2)), window(1),
                traceSeconds));
        assertRound(age);
        assertRound(xTickLabels(RetentionPlots.historyBytesChart("t", "tree", List.of(budget(1.2)), traceSeconds)));
    }

    @Test
    void theTraceWindowStaysInsideThePlotUnlessItWouldFlattenTheRest() {
        double traceSeconds = (BATCHES - 1) * STEP;
        // The window reaches 1.84 s, the budget's line 1.2 s: drawn whole.
        XYChart near = RetentionPlots.retainedAgeChart("t", "tree", List.of(budget(1.2)), window(1), traceSeconds);
        assertTrue(near.getStyler().getYAxisMax() >= traceSeconds, "axis top " + near.getStyler().getYAxisMax());
        assertTrue(near.getSeriesMap().keySet().stream().noneMatch(n -> n.contains("clipped")), near.getSeriesMap()::toString);
        // A window 100 times what the budget keeps: clipped, and its legend says how high it goes.
        XYChart far = RetentionPlots.retainedAgeChart("t", "tree", List.of(budget(0.1)), window(100), traceSeconds);
        assertEquals(0.1 * 1.15, far.getStyler().getYAxisMax(), 1e-9);
        assertTrue(far.getSeriesMap().containsKey("trace window (now - new_oldest_version), clipped: up to 184.38 s"),
                far.getSeriesMap()::toString);
    }
}
