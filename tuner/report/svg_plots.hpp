// The report's charts as inline SVG: no script, no external reference, text
// that stays selectable, a <title> tooltip on every mark.
#pragma once

#include <string>
#include <vector>

#include "tuner/report/report_data.hpp"

namespace attn {

// Median time over two parameters, colored by time / the group's best (log scale).
std::string svg_heatmap(const Heatmap& map);

// Every ranked configuration, fastest first: median / best with its quartiles;
// the best and the baseline marked.
std::string svg_spread(const std::vector<SpreadPoint>& points);

struct RooflinePoint {
  double intensity = 0;  // FLOP per byte
  double gflops = 0;
  int series = 0;  // index into RooflineChart::series
  bool best = false;
  std::string label;
};

struct RooflineChart {
  std::vector<std::string> series;  // one per (kernel, shape)
  std::vector<RooflinePoint> points;
  Ceilings ceilings;  // zero figures: not drawn
};

// GFLOP/s against arithmetic intensity, log-log, under the memory and compute ceilings.
std::string svg_roofline(const RooflineChart& chart);

// The fill for time / best = RELATIVE on a scale from ×1 to color_scale_end(WORST)
// (logarithmic): the report's tables use it too.
std::string relative_color(double relative, double worst);
double color_scale_end(double worst);  // WORST, but at least ×1.25

}  // namespace attn
