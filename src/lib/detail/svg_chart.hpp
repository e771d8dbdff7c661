#pragma once
// Inline SVG charts for the HTML report: stacked bars (memory per GPU), bars ($/Mtok per
// option) and lines against a log2 axis (throughput and latency against batch). The charts only
// place what they are given: the figures come from the library, the value texts from the
// report's tables, so a chart and its table say the same. Every text is escaped; the output is
// well-formed XML (every element closed) with no scripts, links or external resources.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::detail::svg {

/// Escapes & < > " and ' for HTML/SVG text and attribute values.
std::string escape(std::string_view text);

/// Okabe-Ito colours: told apart with the common colour-vision deficiencies.
namespace color {
inline constexpr std::string_view blue = "#0072B2";
inline constexpr std::string_view orange = "#E69F00";
inline constexpr std::string_view sky = "#56B4E9";
inline constexpr std::string_view green = "#009E73";
inline constexpr std::string_view vermillion = "#D55E00";
inline constexpr std::string_view purple = "#CC79A7";
inline constexpr std::string_view grey = "#999999";
inline constexpr std::string_view pale_green = "#CDEBD9";
}  // namespace color

/// A labelled value: a bar segment, a bar, a reference line.
struct Value {
  std::string label;
  double value = 0;
  std::string text;   ///< how the value reads ("72.68"), as in the report's table
  std::string color;  ///< for segments and bars
};

/// One horizontal bar made of segments (left to right), with reference lines across it.
struct StackedRow {
  std::string label;
  std::vector<Value> segments;
  std::vector<Value> lines;  ///< drawn as dashed verticals ("engine cap", "capacity")
  /// The part of the bar that does not fit ("shortfall"): shaded over the bar's last `value`.
  std::optional<Value> overflow;
};

struct StackedBarChart {
  std::string title;
  std::string unit;  ///< "GB"
  std::vector<StackedRow> rows;
};
std::string stacked_bar_chart(const StackedBarChart& chart);

struct BarChart {
  std::string title;
  std::string unit;  ///< "USD per million output tokens"
  std::vector<Value> bars;
  std::optional<Value> limit;  ///< a dashed vertical, e.g. the plan's budget
};
std::string bar_chart(const BarChart& chart);

struct Point {
  double x = 0;
  double y = 0;
};

struct Series {
  std::string label;
  std::vector<Point> points;
  std::string color;
  bool dashed = false;
};

/// A shaded range between two curves at the same x.
struct Band {
  std::string label;
  std::vector<double> x;
  std::vector<double> low;
  std::vector<double> high;
  std::string color;
};

/// A highlighted point with its label ("planned: 12,345 tok/s at batch 64").
struct Callout {
  Point at;
  std::string label;
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Band> bands;
  std::vector<Series> series;
  std::vector<Value> y_lines;  ///< dashed horizontals (a target from the plan)
  std::optional<Callout> callout;
};
/// x is drawn on a log2 axis (batch sizes), y linear from 0.
std::string line_chart(const LineChart& chart);

}  // namespace gpuplan::detail::svg
