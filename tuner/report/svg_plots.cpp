#include "tuner/report/svg_plots.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "tuner/core/markup.hpp"

namespace attn {
namespace {

struct Rgb {
  double r, g, b;
};

// viridis at nine stops, bright (fast) to dark (slow).
constexpr std::array<Rgb, 9> kViridis{{{253, 231, 37},
                                       {181, 222, 43},
                                       {110, 206, 88},
                                       {53, 183, 121},
                                       {31, 158, 137},
                                       {38, 130, 142},
                                       {49, 104, 142},
                                       {62, 74, 137},
                                       {72, 40, 120}}};

// The color scale spans at least ×1 to ×1.25: a 1% spread must not look like a 2x one.
constexpr double kShortestColorScale = 1.25;

// Categorical colors for series (Tableau 10).
constexpr std::array<const char*, 10> kSeries{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                              "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

double ramp_position(double relative, double worst) {
  if (relative <= 1) return 0;
  return std::clamp(std::log(relative) / std::log(color_scale_end(worst)), 0.0, 1.0);
}

Rgb ramp(double t) {
  const double at = t * (kViridis.size() - 1);
  const auto i = std::min<std::size_t>(static_cast<std::size_t>(at), kViridis.size() - 2);
  const double f = at - double(i);
  const Rgb& a = kViridis[i];
  const Rgb& b = kViridis[i + 1];
  return {a.r + f * (b.r - a.r), a.g + f * (b.g - a.g), a.b + f * (b.b - a.b)};
}

std::string hex(const Rgb& c) {
  return fmt::format("#{:02x}{:02x}{:02x}", static_cast<int>(c.r + 0.5), static_cast<int>(c.g + 0.5),
                     static_cast<int>(c.b + 0.5));
}

// Maps [lo, hi] onto [a, b] logarithmically.
struct LogScale {
  double lo, hi, a, b;
  double operator()(double v) const {
    return a + (std::log(std::max(v, 1e-300)) - std::log(lo)) / (std::log(hi) - std::log(lo)) * (b - a);
  }
};

// 1-2-5 ticks inside [lo, hi]; only the powers of ten when those are too many.
std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> all, decades;
  for (int e = static_cast<int>(std::floor(std::log10(lo))) - 1; e <= static_cast<int>(std::ceil(std::log10(hi))); ++e) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, e);
      if (v < lo * 0.999 || v > hi * 1.001) continue;
      all.push_back(v);
      if (m == 1.0) decades.push_back(v);
    }
  }
  if (all.size() <= 7) return all;
  return decades.size() >= 2 ? decades : all;
}

// "2 skipped, 1 incorrect" -> "skipped": what fits in a cell.
std::string first_status(const std::string& note) {
  const auto from = note.find(' ') + 1;
  return note.substr(from, note.find(',', from) - from);
}

std::string number(double v) {
  if (v >= 1e4 || (v < 1e-3 && v > 0)) return fmt::format("{:.0e}", v);
  return fmt::format("{:.3g}", v);
}

std::string svg_open(int width, int height, const std::string& label) {
  return fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" aria-label=\"{2}\">"
      "<title>{2}</title>\n",
      width, height, xml_escape(label));
}

std::string text(double x, double y, const std::string& s, const std::string& attrs = "") {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\"{}{}>{}</text>\n", x, y, attrs.empty() ? "" : " ", attrs,
                     xml_escape(s));
}

}  // namespace

double color_scale_end(double worst) { return std::max(worst, kShortestColorScale); }

std::string relative_color(double relative, double worst) { return hex(ramp(ramp_position(relative, worst))); }

std::string svg_heatmap(const Heatmap& map) {
  constexpr int kCellW = 64, kCellH = 34, kLeft = 64, kTop = 28, kLegendW = 70;
  const int nx = static_cast<int>(map.xs.size()), ny = static_cast<int>(map.ys.size());
  const int width = kLeft + nx * kCellW + kLegendW, height = kTop + ny * kCellH + 40;
  double worst = 1;
  for (const auto& row : map.cells)
    for (const auto& c : row)
      if (c.median_ms) worst = std::max(worst, c.relative);

  std::string s = svg_open(width, height, fmt::format("median time over {} and {}", map.x_param, map.y_param));
  s += text(kLeft + nx * kCellW / 2.0, 14, fmt::format("{} →", map.x_param), "class=\"axis-title\" text-anchor=\"middle\"");
  s += text(12, kTop + ny * kCellH / 2.0, fmt::format("{} →", map.y_param),
            fmt::format("class=\"axis-title\" text-anchor=\"middle\" transform=\"rotate(-90 12 {:.1f})\"",
                        kTop + ny * kCellH / 2.0));
  for (int xi = 0; xi < nx; ++xi)
    s += text(kLeft + (xi + 0.5) * kCellW, kTop + ny * kCellH + 14, map.xs[xi].text(), "text-anchor=\"middle\"");
  for (int yi = 0; yi < ny; ++yi)
    s += text(kLeft - 6, kTop + (yi + 0.5) * kCellH + 4, map.ys[yi].text(), "text-anchor=\"end\"");

  for (int yi = 0; yi < ny; ++yi) {
    for (int xi = 0; xi < nx; ++xi) {
      const HeatmapCell& c = map.cells[yi][xi];
      const double x = kLeft + xi * kCellW, y = kTop + yi * kCellH;
      const std::string where = fmt::format("{}={}, {}={}", map.x_param, map.xs[xi], map.y_param, map.ys[yi]);
      if (!c.median_ms) {
        s += fmt::format("<g><title>{}: {}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"{}\"/>",
                         xml_escape(where), xml_escape(c.note.empty() ? "not in the space" : c.note), x + 1, y + 1,
                         kCellW - 2, kCellH - 2, c.note.empty() ? "cell-empty" : "cell-failed");
        s += text(x + kCellW / 2.0, y + kCellH / 2.0 + 4, c.note.empty() ? "·" : first_status(c.note),
                  "text-anchor=\"middle\" class=\"cell-note\"");
        s += "</g>\n";
        continue;
      }
      const double t = ramp_position(c.relative, worst);
      const bool best = c.relative <= 1.0000001;
      s += fmt::format("<g><title>{}: best {} at {:.4g} ms, {:.3f}x the best</title>", xml_escape(where),
                       xml_escape(c.best_key), *c.median_ms, c.relative);
      s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}/>", x + 1, y + 1, kCellW - 2,
                       kCellH - 2, hex(ramp(t)), best ? " class=\"cell-best\"" : "");
      const std::string ink = t > 0.55 ? "#fff" : "#111";
      s += text(x + kCellW / 2.0, y + 15, number(*c.median_ms),
                fmt::format("text-anchor=\"middle\" fill=\"{}\" class=\"cell-ms\"", ink));
      s += text(x + kCellW / 2.0, y + 28, fmt::format("×{:.2f}", c.relative),
                fmt::format("text-anchor=\"middle\" fill=\"{}\" class=\"cell-rel\"", ink));
      s += "</g>\n";
    }
  }

  // Legend: the ramp from the best to the slowest cell.
  const double lx = kLeft + nx * kCellW + 18, ly = kTop, lh = std::max(ny * kCellH, 60);
  for (int i = 0; i < 20; ++i)
    s += fmt::format("<rect x=\"{}\" y=\"{:.1f}\" width=\"12\" height=\"{:.2f}\" fill=\"{}\"/>", lx, ly + i * lh / 20.0,
                     lh / 20.0 + 0.5, hex(ramp(i / 19.0)));
  s += "\n" + text(lx + 16, ly + 9, "×1 (best)", "class=\"legend\"");
  s += text(lx + 16, ly + lh, fmt::format("×{:.2f}", color_scale_end(worst)), "class=\"legend\"");
  s += text(kLeft, height - 6, "ms, best over the other parameters; ×: time / best", "class=\"caption\"");
  return s + "</svg>\n";
}

std::string svg_spread(const std::vector<SpreadPoint>& points) {
  constexpr int kW = 440, kH = 230, kLeft = 48, kRight = 12, kTop = 12, kBottom = 34;
  std::string s = svg_open(kW, kH, "time / best of every ranked configuration, fastest first");
  if (points.empty()) return s + text(kW / 2.0, kH / 2.0, "nothing ranked", "text-anchor=\"middle\"") + "</svg>\n";
  double hi = 1.05;
  for (const auto& p : points) hi = std::max({hi, p.relative * 1.05, p.q3 * 1.02});
  const double lo =
      std::min(1.0, std::min_element(points.begin(), points.end(), [](auto& a, auto& b) { return a.q1 < b.q1; })->q1) * 0.98;
  const LogScale y{lo, hi, double(kH - kBottom), double(kTop)};
  const double n = double(points.size());
  auto x = [&](std::size_t i) { return kLeft + (n <= 1 ? 0.5 : double(i) / (n - 1)) * (kW - kLeft - kRight); };

  for (double t : log_ticks(lo, hi)) {
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>", kLeft, kW - kRight, y(t),
                     y(t));
    s += text(kLeft - 4, y(t) + 4, fmt::format("×{}", number(t)), "text-anchor=\"end\"");
  }
  const double r = points.size() > 120 ? 1.6 : 2.6;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const char* cls = p.best ? "pt-best" : p.baseline ? "pt-baseline" : "pt";
    s += fmt::format("<g><title>#{} {}: ×{:.3f} (quartiles ×{:.3f} to ×{:.3f}){}</title>", i + 1, xml_escape(p.label),
                     p.relative, p.q1, p.q3, p.baseline ? ", the spec's baseline" : "");
    if (p.q3 > p.q1)
      s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" class=\"iqr\"/>", x(i), y(p.q1),
                       y(p.q3));
    s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" class=\"{}\"/></g>\n", x(i), y(p.relative),
                     p.best || p.baseline ? r + 1.4 : r, cls);
    if (p.baseline) s += text(x(i) + 5, y(p.relative) - 5, "baseline", "class=\"annot\"");
  }
  s += text(kLeft + (kW - kLeft - kRight) / 2.0, kH - 8, fmt::format("{} configurations, fastest first", points.size()),
            "text-anchor=\"middle\" class=\"caption\"");
  return s + "</svg>\n";
}

std::string svg_roofline(const RooflineChart& chart) {
  constexpr int kW = 560, kH = 320, kLeft = 58, kRight = 180, kTop = 14, kBottom = 40;
  std::string s = svg_open(kW, kH, "roofline: GFLOP/s against FLOP per byte");
  if (chart.points.empty()) return s + text(kW / 2.0, kH / 2.0, "nothing ranked", "text-anchor=\"middle\"") + "</svg>\n";
  const Ceilings& c = chart.ceilings;
  double xlo = 1e300, xhi = 0, ylo = 1e300, yhi = 0;
  for (const auto& p : chart.points) {
    xlo = std::min(xlo, p.intensity), xhi = std::max(xhi, p.intensity);
    ylo = std::min(ylo, p.gflops), yhi = std::max(yhi, p.gflops);
  }
  if (c.gflops > 0 && c.gbps > 0) xhi = std::max(xhi, c.gflops / c.gbps);
  if (c.gflops > 0) yhi = std::max(yhi, c.gflops);
  xlo /= 4, xhi *= 4, ylo /= 3, yhi *= 2;
  const LogScale x{xlo, xhi, double(kLeft), double(kW - kRight)};
  const LogScale y{ylo, yhi, double(kH - kBottom), double(kTop)};

  for (double t : log_ticks(xlo, xhi)) {
    s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" class=\"grid\"/>", x(t), kTop, kH - kBottom);
    s += text(x(t), kH - kBottom + 14, number(t), "text-anchor=\"middle\"");
  }
  for (double t : log_ticks(ylo, yhi)) {
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>", kLeft, kW - kRight, y(t),
                     y(t));
    s += text(kLeft - 4, y(t) + 4, number(t), "text-anchor=\"end\"");
  }
  s += text(kLeft + (kW - kLeft - kRight) / 2.0, kH - 8, "arithmetic intensity, FLOP/byte",
            "text-anchor=\"middle\" class=\"axis-title\"");
  s += text(12, kTop + (kH - kTop - kBottom) / 2.0, "GFLOP/s",
            fmt::format("text-anchor=\"middle\" class=\"axis-title\" transform=\"rotate(-90 12 {:.1f})\"",
                        kTop + (kH - kTop - kBottom) / 2.0));

  // Ceilings: bandwidth * intensity up to the ridge, then the compute peak.
  const double ridge = c.gflops > 0 && c.gbps > 0 ? c.gflops / c.gbps : xhi;
  if (c.gbps > 0) {
    const double x0 = std::max(xlo, ylo / c.gbps), x1 = std::min(ridge, xhi);
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"roof\"><title>memory: {} GB/s</title></line>",
        x(x0), y(x0 * c.gbps), x(x1), y(std::min(x1 * c.gbps, yhi)), number(c.gbps));
    s += text(x(x0) + 4, y(x0 * c.gbps) - 6, fmt::format("{} GB/s", number(c.gbps)), "class=\"roof-label\"");
  }
  if (c.gflops > 0) {
    const double x0 = c.gbps > 0 ? std::max(ridge, xlo) : xlo;
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"roof\"><title>compute: {} GFLOP/s</title></line>",
        x(x0), y(c.gflops), kW - kRight, y(c.gflops), number(c.gflops));
    s += text(kW - kRight - 4, y(c.gflops) - 5, fmt::format("{} GFLOP/s", number(c.gflops)),
              "text-anchor=\"end\" class=\"roof-label\"");
  }
  if (c.gflops <= 0 && c.gbps <= 0)
    s += text(kLeft + 6, kTop + 12, "no ceilings known for this device: --peak-gflops, --peak-gbps", "class=\"caption\"");

  // Dots: the rest first, each series' best on top.
  for (bool best_pass : {false, true}) {
    for (const auto& p : chart.points) {
      if (p.best != best_pass) continue;
      const char* color = kSeries[static_cast<std::size_t>(p.series) % kSeries.size()];
      s += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\" class=\"{}\"><title>{}: {:.4g} GFLOP/s at {:.3g} "
          "FLOP/B</title></circle>\n",
          x(p.intensity), y(p.gflops), p.best ? 4.5 : 2.4, color, p.best ? "roof-best" : "roof-pt", xml_escape(p.label),
          p.gflops, p.intensity);
    }
  }
  for (std::size_t i = 0; i < chart.series.size() && i < 16; ++i) {
    const double ly = kTop + 8 + 15 * double(i);
    s += fmt::format("<circle cx=\"{}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>", kW - kRight + 14, ly,
                     kSeries[i % kSeries.size()]);
    std::string name = chart.series[i];
    if (name.size() > 26) name.replace(25, std::string::npos, "…");
    s += text(kW - kRight + 22, ly + 4, name, "class=\"legend\"");
  }
  return s + "</svg>\n";
}

}  // namespace attn
