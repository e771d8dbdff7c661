#include "detail/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "detail/document.hpp"

namespace gpuplan::detail::svg {
namespace {

constexpr double kWidth = 900;  // the report's column (960 px less padding)
constexpr std::string_view kAxisColor = "#444444";
constexpr std::string_view kGridColor = "#e3e3e3";

// Coordinates with one decimal: enough for a screen, and short.
std::string c(double v) { return fmt::format("{:.1f}", checked(v, "a chart coordinate")); }

// Chart labels are drawn at a fixed size: a very long name is cut (the tables hold it whole).
std::string clipped(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) {
    return std::string(text);
  }
  std::size_t cut = max_chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
    --cut;  // never split a UTF-8 sequence
  }
  return std::string(text.substr(0, cut)) + "\xE2\x80\xA6";
}

std::string text_at(double x, double y, std::string_view text, std::string_view attributes = "") {
  return fmt::format("<text x=\"{}\" y=\"{}\"{}{}>{}</text>\n", c(x), c(y), attributes.empty() ? "" : " ", attributes,
                     escape(text));
}

std::string open_svg(double height, std::string_view title) {
  return fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"{2}\" font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"12\">\n<title>{2}</title>\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n{3}",
      c(kWidth), c(height), escape(title), text_at(10, 20, title, "font-size=\"15\" font-weight=\"bold\""));
}

// A round step (1, 2 or 5 x 10^k) giving about five ticks from 0 to `max`.
double nice_step(double max) {
  if (!(max > 0)) {
    return 1;
  }
  const double raw = max / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * magnitude;
}

std::string tick_text(double value, double step) {
  if (step >= 1) {
    return group_digits(static_cast<std::uint64_t>(std::llround(value)));
  }
  const int decimals = static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return fmt::format("{:.{}f}", value, decimals);
}

struct LinearAxis {
  double step = 1;
  double max = 1;  ///< the last tick
  explicit LinearAxis(double data_max) : step(nice_step(data_max)) {
    max = std::max(step, std::ceil(data_max / step - 1e-9) * step);
  }
};

// Ticks and labels of a horizontal value axis from `left` over `width` pixels at `y`.
std::string value_axis(const LinearAxis& axis, double left, double width, double top, double y, std::string_view unit) {
  std::string out;
  for (double v = 0; v <= axis.max * (1 + 1e-9); v += axis.step) {
    const double x = left + v / axis.max * width;
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>\n", c(x), c(top), c(y),
                       kGridColor);
    out += text_at(x, y + 14, tick_text(v, axis.step), "text-anchor=\"middle\" fill=\"#444444\"");
  }
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>\n", c(left), c(y), c(left + width),
                     c(y), kAxisColor);
  out += text_at(left + width / 2, y + 30, unit, "text-anchor=\"middle\"");
  return out;
}

std::string legend_box(double x, double y, std::string_view color, std::string_view label) {
  return fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\" stroke=\"#666666\" stroke-width=\"0.5\"/>\n",
                     c(x), c(y - 10), color) +
         text_at(x + 16, y, label);
}

std::string legend_line(double x, double y, std::string_view color, bool dashed, std::string_view label) {
  return fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", c(x),
                     c(y - 4), c(x + 22), c(y - 4), color, dashed ? " stroke-dasharray=\"5 3\"" : "") +
         text_at(x + 26, y, label);
}

// Legend entries laid out left to right; about 7 px per character of label.
double legend_advance(std::string_view label, double mark) { return mark + 7.0 * static_cast<double>(label.size()) + 18; }

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string stacked_bar_chart(const StackedBarChart& chart) {
  constexpr double left = 180;
  constexpr double plot_width = kWidth - left - 30;
  constexpr double top = 60;
  constexpr double row_height = 76;
  double data_max = 0;
  for (const StackedRow& row : chart.rows) {
    double sum = 0;
    for (const Value& s : row.segments) {
      sum += checked(s.value, s.label);
    }
    data_max = std::max(data_max, sum);
    for (const Value& l : row.lines) {
      data_max = std::max(data_max, checked(l.value, l.label));
    }
  }
  const LinearAxis axis(data_max);
  const double axis_y = top + static_cast<double>(chart.rows.size()) * row_height;
  std::string out = open_svg(axis_y + 40, chart.title);
  // The legend: each segment label once, then the reference lines' styles.
  double lx = 10;
  std::vector<std::string> seen;
  for (const StackedRow& row : chart.rows) {
    for (const Value& s : row.segments) {
      if (std::find(seen.begin(), seen.end(), s.label) == seen.end()) {
        seen.push_back(s.label);
        out += legend_box(lx, 42, s.color, s.label);
        lx += legend_advance(s.label, 16);
      }
    }
    for (const Value& l : row.lines) {
      if (std::find(seen.begin(), seen.end(), l.label) == seen.end()) {
        seen.push_back(l.label);
        out += legend_line(lx, 42, l.color, true, l.label);
        lx += legend_advance(l.label, 26);
      }
    }
  }
  const auto x_of = [&](double v) { return left + v / axis.max * plot_width; };
  out += value_axis(axis, left, plot_width, top - 6, axis_y, chart.unit);
  for (std::size_t i = 0; i < chart.rows.size(); ++i) {
    const StackedRow& row = chart.rows[i];
    const double y = top + static_cast<double>(i) * row_height;
    out += text_at(left - 8, y + 17, clipped(row.label, 22), "text-anchor=\"end\" font-weight=\"bold\" font-size=\"11\"");
    double at = 0;
    std::string values;
    std::string references;
    for (const Value& s : row.segments) {
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"24\" fill=\"{}\" stroke=\"#ffffff\" "
                         "stroke-width=\"0.5\"><title>{}</title></rect>\n",
                         c(x_of(at)), c(y), c(s.value / axis.max * plot_width), s.color,
                         escape(fmt::format("{}: {} {}", s.label, s.text, chart.unit)));
      at += s.value;
      values += fmt::format("{}{} {}", values.empty() ? "" : ", ", s.label, s.text);
    }
    for (const Value& l : row.lines) {
      out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\" "
                         "stroke-dasharray=\"5 3\"/>\n",
                         c(x_of(l.value)), c(y - 5), c(y + 29), l.color);
      references += fmt::format("{}{} {}", references.empty() ? "" : ", ", l.label, l.text);
    }
    if (row.overflow) {
      const Value& o = *row.overflow;
      const double from = std::max(0.0, at - checked(o.value, o.label));
      // Outlined, with a solid strip under it: the segments stay readable inside.
      out += fmt::format("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"24\" fill=\"none\" stroke=\"{3}\" "
                         "stroke-width=\"2\"><title>{4}</title></rect>\n<rect x=\"{0}\" y=\"{5}\" width=\"{2}\" "
                         "height=\"4\" fill=\"{3}\"/>\n",
                         c(x_of(from)), c(y), c(x_of(at) - x_of(from)), color::vermillion,
                         escape(fmt::format("{}: {} {}", o.label, o.text, chart.unit)), c(y + 26));
      references += fmt::format("{}{} {}", references.empty() ? "" : ", ", o.label, o.text);
    }
    // Two lines of figures under the bar: the segments, then the reference lines.
    out += text_at(left, y + 40, fmt::format("{} ({})", values, chart.unit), "font-size=\"11\" fill=\"#333333\"");
    if (!references.empty()) {
      out += text_at(left, y + 55, fmt::format("{} ({})", references, chart.unit), "font-size=\"11\" fill=\"#333333\"");
    }
  }
  return out + "</svg>\n";
}

std::string bar_chart(const BarChart& chart) {
  constexpr double left = 340;
  constexpr double plot_width = kWidth - left - 90;
  constexpr double top = 56;
  constexpr double row_height = 26;
  double data_max = 0;
  for (const Value& b : chart.bars) {
    data_max = std::max(data_max, checked(b.value, b.label));
  }
  if (chart.limit) {
    data_max = std::max(data_max, checked(chart.limit->value, chart.limit->label));
  }
  const LinearAxis axis(data_max);
  const double axis_y = top + static_cast<double>(chart.bars.size()) * row_height + 4;
  std::string out = open_svg(axis_y + 40, chart.title);
  const auto x_of = [&](double v) { return left + v / axis.max * plot_width; };
  out += value_axis(axis, left, plot_width, top - 4, axis_y, chart.unit);
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const Value& b = chart.bars[i];
    const double y = top + static_cast<double>(i) * row_height;
    out += text_at(left - 8, y + 14, clipped(b.label, 50), "text-anchor=\"end\"");
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"18\" fill=\"{}\"><title>{}</title></rect>\n",
                       c(left), c(y + 1), c(b.value / axis.max * plot_width), b.color,
                       escape(fmt::format("{}: {} {}", b.label, b.text, chart.unit)));
    out += text_at(x_of(b.value) + 6, y + 14, b.text, "font-weight=\"bold\"");
  }
  if (chart.limit) {
    const double x = x_of(chart.limit->value);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\" "
                       "stroke-dasharray=\"6 3\"/>\n",
                       c(x), c(top - 8), c(axis_y), color::vermillion);
    out += text_at(x, top - 12, fmt::format("{} {}", chart.limit->label, chart.limit->text),
                   fmt::format("text-anchor=\"{}\" fill=\"{}\"", x > left + plot_width * 0.7 ? "end" : "middle",
                               color::vermillion));
  }
  return out + "</svg>\n";
}

std::string line_chart(const LineChart& chart) {
  constexpr double left = 78;
  constexpr double plot_width = kWidth - left - 24;
  constexpr double top = 62;
  constexpr double plot_height = 250;
  const double bottom = top + plot_height;
  // The x range over every series and band, on log2: batch sizes double.
  double x_min = 0;
  double x_max = 0;
  double y_max = 0;
  bool any = false;
  const auto see = [&](double x, double y) {
    checked(x, "a chart x");
    checked(y, "a chart y");
    x_min = any ? std::min(x_min, x) : x;
    x_max = any ? std::max(x_max, x) : x;
    y_max = std::max(y_max, y);
    any = true;
  };
  for (const Band& b : chart.bands) {
    for (std::size_t i = 0; i < b.x.size() && i < b.low.size() && i < b.high.size(); ++i) {
      see(b.x[i], b.high[i]);
    }
  }
  for (const Series& s : chart.series) {
    for (const Point& p : s.points) {
      see(p.x, p.y);
    }
  }
  for (const Value& l : chart.y_lines) {
    y_max = std::max(y_max, checked(l.value, l.label));
  }
  if (!any || x_min <= 0) {
    x_min = 1;
    x_max = std::max(x_max, 1.0);
  }
  double lo = std::log2(x_min);
  double hi = std::log2(x_max);
  if (hi - lo < 1) {
    lo -= 0.5;
    hi += 0.5;
  }
  const LinearAxis axis(y_max * 1.05);
  const auto px = [&](double x) { return left + (std::log2(x) - lo) / (hi - lo) * plot_width; };
  const auto py = [&](double y) { return bottom - y / axis.max * plot_height; };
  std::string out = open_svg(bottom + 48, chart.title);
  // Horizontal grid and y ticks.
  for (double v = 0; v <= axis.max * (1 + 1e-9); v += axis.step) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\"/>\n", c(left), c(py(v)),
                       c(left + plot_width), kGridColor);
    out += text_at(left - 6, py(v) + 4, tick_text(v, axis.step), "text-anchor=\"end\" fill=\"#444444\"");
  }
  // x ticks at powers of two, every other one when they crowd.
  const int first = std::max(0, static_cast<int>(std::ceil(lo - 1e-9)));  // batches are >= 1
  const int last = static_cast<int>(std::floor(hi + 1e-9));
  const int every = last - first > 12 ? 2 : 1;
  for (int e = first; e <= last; e += every) {
    const double x = px(std::ldexp(1.0, e));
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>\n", c(x), c(top), c(bottom),
                       kGridColor);
    out += text_at(x, bottom + 15, group_digits(std::uint64_t{1} << e), "text-anchor=\"middle\" fill=\"#444444\"");
  }
  out += fmt::format("<path d=\"M{} {}V{}H{}\" fill=\"none\" stroke=\"{}\"/>\n", c(left), c(top), c(bottom),
                     c(left + plot_width), kAxisColor);
  out += text_at(left + plot_width / 2, bottom + 36, chart.x_label, "text-anchor=\"middle\"");
  out += text_at(16, top + plot_height / 2, chart.y_label,
                 fmt::format("text-anchor=\"middle\" transform=\"rotate(-90 16 {})\"", c(top + plot_height / 2)));
  double lx = 10;
  for (const Band& b : chart.bands) {
    std::string d;
    const std::size_t n = std::min({b.x.size(), b.low.size(), b.high.size()});
    for (std::size_t i = 0; i < n; ++i) {
      d += fmt::format("{}{} {}", i == 0 ? "M" : "L", c(px(b.x[i])), c(py(b.high[i])));
    }
    for (std::size_t i = n; i-- > 0;) {
      d += fmt::format("L{} {}", c(px(b.x[i])), c(py(b.low[i])));
    }
    if (n > 0) {
      out += fmt::format("<path d=\"{}Z\" fill=\"{}\" fill-opacity=\"0.25\" stroke=\"none\"/>\n", d, b.color);
    }
    out += legend_box(lx, 42, b.color, b.label);
    lx += legend_advance(b.label, 16);
  }
  for (const Series& s : chart.series) {
    std::string d;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      d += fmt::format("{}{} {}", i == 0 ? "M" : "L", c(px(s.points[i].x)), c(py(s.points[i].y)));
    }
    if (!d.empty()) {
      out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", d, s.color,
                         s.dashed ? " stroke-dasharray=\"6 4\"" : "");
    }
    out += legend_line(lx, 42, s.color, s.dashed, s.label);
    lx += legend_advance(s.label, 26);
  }
  for (const Value& l : chart.y_lines) {
    const double y = py(l.value);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"1.5\" "
                       "stroke-dasharray=\"3 3\"/>\n",
                       c(left), c(y), c(left + plot_width), color::vermillion);
    out += text_at(left + plot_width - 4, y - 5, fmt::format("{} {}", l.label, l.text),
                   fmt::format("text-anchor=\"end\" fill=\"{}\"", color::vermillion));
  }
  if (chart.callout) {
    const double x = px(chart.callout->at.x);
    const double y = py(chart.callout->at.y);
    out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"#000000\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>\n",
                       c(x), c(y));
    const bool right_half = x > left + plot_width * 0.6;
    const double label_y = std::clamp(y - 10, top + 12, bottom - 6);
    out += text_at(right_half ? x - 8 : x + 8, label_y, chart.callout->label,
                   fmt::format("text-anchor=\"{}\" font-weight=\"bold\" paint-order=\"stroke\" stroke=\"#ffffff\" "
                               "stroke-width=\"3\"",
                               right_half ? "end" : "start"));
  }
  return out + "</svg>\n";
}

}  // namespace gpuplan::detail::svg
