package org.fdbresolver.harness.retention;

import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The retention report's two PNG plots, drawn with XChart: retained age over trace time with one line per
 * budget (and, when measured, FoundationDB's window at the same memory as a dashed line of the same colour),
 * and history bytes over trace time with each budget as a dashed line. Needs AWT (module {@code java.desktop})
 * and a font; it draws headless.
 */
public final class RetentionPlots {
    public static final int WIDTH = 1100;
    public static final int HEIGHT = 560;
    private static final double MIB = 1 << 20;
    private static final Color[] COLORS = {
            new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd),
            new Color(0xff7f0e), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf)};
    private static final Color WINDOW_COLOR = new Color(0x7f7f7f);
    /** The trace window is drawn whole unless it rises more than this many times above every other line. */
    static final double WINDOW_CLIP = 2;
    /** Where, as a fraction of the trace, the point that keeps XChart's x ticks round lies: on no batch grid. */
    private static final double OFF_GRID = 0.5 + 1 / Math.PI / 1000;

    /**
     * One budget's lines.
     *
     * @param label             how the budget is named in the legend, e.g. {@code 16 MiB}
     * @param retainedAge       retained age in seconds over trace seconds
     * @param historyBytes      history bytes over trace seconds
     * @param fdbWindowSeconds  FoundationDB's longest window in the same bytes, or NaN when not measured
     */
    public record BudgetLines(String label, long budgetBytes, PlotSeries retainedAge, PlotSeries historyBytes,
                              double fdbWindowSeconds) {
    }

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private RetentionPlots() {
    }

    /**
     * Retained age over trace time, one line per budget; {@code traceWindow} (the trace's own
     * {@code now - new_oldest_version}) dashed grey. The age axis ends a little above the budgets' lines and
     * FoundationDB's windows, and above the trace window too unless that is more than {@link #WINDOW_CLIP}
     * times higher: a trace window far longer than what any budget keeps would otherwise flatten every line.
     * Then it is clipped, and its legend says so and how high it goes.
     */
    public static void writeRetainedAge(String title, String engine, List<BudgetLines> budgets, PlotSeries traceWindow,
                                        double traceSeconds, OutputStream out) throws IOException {
        BitmapEncoder.saveBitmap(retainedAgeChart(title, engine, budgets, traceWindow, traceSeconds), out, BitmapFormat.PNG);
    }

    static XYChart retainedAgeChart(String title, String engine, List<BudgetLines> budgets, PlotSeries traceWindow,
                                    double traceSeconds) {
        XYChart chart = chart(title, "retained age (s)", traceSeconds);
        double top = 0;
        for (BudgetLines b : budgets) {
            for (double age : b.retainedAge().ys()) {
                top = Math.max(top, age);
            }
            top = Math.max(top, Double.isNaN(b.fdbWindowSeconds()) ? 0 : b.fdbWindowSeconds());
        }
        double windowTop = 0;
        if (traceWindow != null) {
            for (double w : traceWindow.ys()) {
                windowTop = Math.max(windowTop, w);
            }
        }
        boolean clipped = windowTop > WINDOW_CLIP * top && top > 0;
        if (!clipped) {
            top = Math.max(top, windowTop);
        }
        if (top > 0) {
            chart.getStyler().setYAxisMax(top * 1.15);
        }
        for (int i = 0; i < budgets.size(); i++) {
            BudgetLines b = budgets.get(i);
            Color color = COLORS[i % COLORS.length];
            line(chart, engine + ", " + b.label(), b.retainedAge(), color, false);
            if (!Double.isNaN(b.fdbWindowSeconds())) {
                XYSeries fdb = chart.addSeries(String.format(java.util.Locale.ROOT, "FoundationDB skip list, %s: %.2f s",
                        b.label(), b.fdbWindowSeconds()), new double[] {0, traceSeconds},
                        new double[] {b.fdbWindowSeconds(), b.fdbWindowSeconds()});
                style(fdb, color, true);
            }
        }
        if (traceWindow != null && !traceWindow.isEmpty()) {
            line(chart, "trace window (now - new_oldest_version)" + (clipped
                    ? String.format(java.util.Locale.ROOT, ", clipped: up to %.2f s", windowTop) : ""),
                    traceWindow, WINDOW_COLOR, true);
        }
        return chart;
    }

    /** History bytes (MiB) over trace time, one line per budget, each budget dashed in its colour. */
    public static void writeHistoryBytes(String title, String engine, List<BudgetLines> budgets, double traceSeconds,
                                         OutputStream out) throws IOException {
        BitmapEncoder.saveBitmap(historyBytesChart(title, engine, budgets, traceSeconds), out, BitmapFormat.PNG);
    }

    static XYChart historyBytesChart(String title, String engine, List<BudgetLines> budgets, double traceSeconds) {
        XYChart chart = chart(title, "history (MiB)", traceSeconds);
        for (int i = 0; i < budgets.size(); i++) {
            BudgetLines b = budgets.get(i);
            Color color = COLORS[i % COLORS.length];
            PlotSeries history = b.historyBytes();
            double[] ys = history.ys();
            for (int j = 0; j < ys.length; j++) {
                ys[j] /= MIB;
            }
            style(chart.addSeries(engine + ", " + b.label(), history.xs(), ys), color, false);
            double budget = b.budgetBytes() / MIB;
            style(chart.addSeries("budget " + b.label(), new double[] {0, traceSeconds}, new double[] {budget, budget}),
                    color, true);
        }
        return chart;
    }

    /**
     * A chart over trace time {@code [0, traceSeconds]}. XChart puts the x ticks on the data's own x values
     * when they are equally spaced — as batches' times are on a short trace — which gives a tick per batch
     * or two, at odd values (0.06, 0.12, 0.19 ...); one invisible point off that grid makes it choose round
     * ticks (0, 0.2, 0.4 ...) as it does for long traces.
     */
    private static XYChart chart(String title, String yTitle, double traceSeconds) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle("trace time (s of commit versions, 1,000,000 per second)").yAxisTitle(yTitle).build();
        if (traceSeconds > 0) {
            XYSeries offGrid = chart.addSeries(" ", new double[] {traceSeconds * OFF_GRID}, new double[] {0});
            offGrid.setMarker(SeriesMarkers.NONE);
            offGrid.setLineStyle(SeriesLines.NONE);
            offGrid.setShowInLegend(false);
        }
        chart.getStyler().setLegendPosition(LegendPosition.OutsideS);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setPlotBackgroundColor(Color.WHITE);
        chart.getStyler().setPlotGridLinesColor(new Color(0xdddddd));
        chart.getStyler().setMarkerSize(0);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisDecimalPattern("#,##0.##");
        chart.getStyler().setXAxisDecimalPattern("#,##0.##");
        return chart;
    }

    private static void line(XYChart chart, String name, PlotSeries series, Color color, boolean dashed) {
        style(chart.addSeries(name, series.xs(), series.ys()), color, dashed);
    }

    private static void style(XYSeries s, Color color, boolean dashed) {
        s.setMarker(SeriesMarkers.NONE);
        s.setLineColor(color);
        s.setLineStyle(dashed ? SeriesLines.DASH_DASH : SeriesLines.SOLID);
    }
}
