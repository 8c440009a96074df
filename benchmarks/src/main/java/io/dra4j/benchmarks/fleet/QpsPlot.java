package io.dra4j.benchmarks.fleet;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

/** A line plot of requests per second over time, drawn with Java2D and written as a PNG. */
final class QpsPlot {
  /** One line: points (seconds, requests per second). */
  record Series(String name, Color color, double[] t, double[] qps) {}

  /** A vertical line at {@code t} seconds with a label (the API server stopped, started, ...). */
  record Marker(String label, double t) {}

  private static final int W = 1100;
  private static final int H = 580;
  private static final int LEFT = 70;
  private static final int RIGHT = 20;
  private static final int TOP = 50;
  private static final int BOTTOM = 120;

  private QpsPlot() {}

  static void write(
      Path file, String title, double from, double to, List<Series> series, List<Marker> markers)
      throws IOException {
    BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(
        RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, W, H);
    double max = 1;
    for (Series s : series) {
      for (int i = 0; i < s.t().length; i++) {
        if (s.t()[i] >= from && s.t()[i] <= to && !Double.isNaN(s.qps()[i])) {
          max = Math.max(max, s.qps()[i]);
        }
      }
    }
    max = niceCeiling(max * 1.05);
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    double span = Math.max(1e-9, to - from);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    // Grid and axes.
    double yStep = niceCeiling(max / 5);
    for (double y = 0; y <= max + 1e-9; y += yStep) {
      int py = TOP + ph - (int) Math.round(y / max * ph);
      g.setColor(new Color(230, 230, 230));
      g.drawLine(LEFT, py, LEFT + pw, py);
      g.setColor(Color.DARK_GRAY);
      String label = y == Math.rint(y) ? Long.toString((long) y) : String.format("%.1f", y);
      g.drawString(label, LEFT - 8 - g.getFontMetrics().stringWidth(label), py + 4);
    }
    double xStep = niceCeiling(span / 10);
    for (double x = Math.ceil(from / xStep) * xStep; x <= to + 1e-9; x += xStep) {
      int px = LEFT + (int) Math.round((x - from) / span * pw);
      g.setColor(new Color(230, 230, 230));
      g.drawLine(px, TOP, px, TOP + ph);
      g.setColor(Color.DARK_GRAY);
      String label = Long.toString(Math.round(x - from));
      g.drawString(label, px - g.getFontMetrics().stringWidth(label) / 2, TOP + ph + 16);
    }
    g.setColor(Color.BLACK);
    g.drawRect(LEFT, TOP, pw, ph);
    g.drawString("seconds from the start of this window", LEFT + pw / 2 - 110, TOP + ph + 34);
    Graphics2D rot = (Graphics2D) g.create();
    rot.rotate(-Math.PI / 2);
    rot.drawString("requests per second", -(TOP + ph / 2) - 55, 18);
    rot.dispose();
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString(title, LEFT, 30);
    // Markers.
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    int row = 0;
    for (Marker m : markers) {
      if (m.t() < from || m.t() > to) {
        continue;
      }
      int px = LEFT + (int) Math.round((m.t() - from) / span * pw);
      g.setColor(new Color(150, 150, 150));
      g.setStroke(
          new BasicStroke(1, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {4}, 0));
      g.drawLine(px, TOP, px, TOP + ph);
      g.setStroke(new BasicStroke(1));
      g.setColor(Color.DARK_GRAY);
      g.drawString(m.label(), px + 3, TOP + 14 + 13 * (row++ % 4));
    }
    // Lines.
    g.setStroke(new BasicStroke(1.6f));
    int legendY = TOP + ph + 60;
    for (Series s : series) {
      g.setColor(s.color());
      int lastX = -1;
      int lastY = -1;
      for (int i = 0; i < s.t().length; i++) {
        if (s.t()[i] < from || s.t()[i] > to) {
          continue;
        }
        if (Double.isNaN(s.qps()[i])) {
          lastX = -1; // a gap: lift the pen
          continue;
        }
        int px = LEFT + (int) Math.round((s.t()[i] - from) / span * pw);
        int py = TOP + ph - (int) Math.round(s.qps()[i] / max * ph);
        if (lastX >= 0) {
          g.drawLine(lastX, lastY, px, py);
        }
        lastX = px;
        lastY = py;
      }
      int lx = LEFT;
      g.fillRect(lx, legendY - 8, 18, 4);
      g.setColor(Color.BLACK);
      g.drawString(s.name(), lx + 24, legendY - 3);
      legendY += 15;
    }
    g.dispose();
    Files.createDirectories(file.toAbsolutePath().getParent());
    ImageIO.write(img, "png", file.toFile());
  }

  /** 1, 2 or 5 times a power of ten, at least {@code v}. */
  static double niceCeiling(double v) {
    if (v <= 0) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * p >= v) {
        return m * p;
      }
    }
    return 10 * p;
  }
}
