// Measured scaling points from the command line ("4=3600") or a JSON or CSV file.
#include <gpuplan/measured_points.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>

#include "detail/ascii.hpp"
#include "detail/json_reader.hpp"

namespace gpuplan {
namespace {

using limits::kMaxGpus;

// Column and key names people use, with the unit a throughput name implies.
constexpr std::array<std::string_view, 6> kGpuNames{"gpus", "num_gpus", "gpu_count", "n_gpus", "world_size", "n"};
struct ThroughputName {
  std::string_view name;
  std::string_view unit;  // empty: the name says nothing about the unit
};
constexpr std::array<ThroughputName, 9> kThroughputNames{{{"throughput", ""},
                                                          {"value", ""},
                                                          {"tokens_per_s", "tokens/s"},
                                                          {"tokens_per_second", "tokens/s"},
                                                          {"tok_per_s", "tokens/s"},
                                                          {"samples_per_s", "samples/s"},
                                                          {"samples_per_second", "samples/s"},
                                                          {"requests_per_s", "requests/s"},
                                                          {"images_per_s", "images/s"}}};

std::string trim_field(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\"");
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = text.find_last_not_of(" \t\r\"");
  return std::string(text.substr(first, last - first + 1));
}

using detail::lower;

std::string known_names() {
  std::string gpus;
  for (std::string_view n : kGpuNames) {
    gpus += (gpus.empty() ? "" : ", ") + std::string(n);
  }
  std::string tput;
  for (const ThroughputName& n : kThroughputNames) {
    tput += (tput.empty() ? "" : ", ") + std::string(n.name);
  }
  return fmt::format("GPU count as one of {}; throughput as one of {}, or named for its rate (tokens/s)", gpus, tput);
}

std::optional<std::uint64_t> to_count(std::string_view text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty() || v < 1 || v > kMaxGpus) {
    return std::nullopt;
  }
  return v;
}

// from_chars: plain decimal or exponent notation only (no hex, no "nan", no "inf").
std::optional<double> to_throughput(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty() || !std::isfinite(v) || !(v > 0)) {
    return std::nullopt;
  }
  return v;
}

// A column or key named for its rate ("tokens/s", "samples/sec") is the throughput in that unit.
std::optional<std::string> rate_name(const std::string& name) {
  if (name.find('/') == std::string::npos) {
    return std::nullopt;
  }
  try {
    return parse_throughput_unit(name, "column").text;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::string count_message(std::string_view what) {
  return fmt::format("the GPU count must be a whole number from 1 to {}, got '{}'", kMaxGpus, what);
}
std::string throughput_message(std::string_view what) {
  return fmt::format("the throughput must be a positive number, got '{}'", what);
}

ScalingPoint json_point(const detail::Json& item, const std::string& origin, const detail::JsonPointer& at,
                        std::optional<std::string>& unit) {
  const auto fail = [&](const std::string& message) -> void {
    throw InputError(fmt::format("{}: {}", detail::where(origin, at), message));
  };
  const auto count_of = [&](const detail::Json& v) -> std::uint64_t {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > static_cast<std::int64_t>(kMaxGpus)) {
      fail(count_message(v.dump()));
    }
    return v.get<std::uint64_t>();
  };
  const auto throughput_of = [&](const detail::Json& v) -> double {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || !(v.get<double>() > 0)) {
      fail(throughput_message(v.is_string() ? v.get<std::string>() : v.dump()));
    }
    return v.get<double>();
  };
  if (item.is_array()) {
    if (item.size() != 2) {
      fail("expected [gpus, throughput]");
    }
    return {.gpus = count_of(item[0]), .throughput = throughput_of(item[1])};
  }
  if (!item.is_object()) {
    fail("expected an object such as {\"gpus\": 4, \"throughput\": 3600} or a pair [4, 3600]");
  }
  const detail::Json* gpus = nullptr;
  const detail::Json* tput = nullptr;
  std::string_view tput_unit;
  std::string rate_unit;
  for (const auto& [key, value] : item.items()) {
    const std::string k = lower(key);
    if (std::find(kGpuNames.begin(), kGpuNames.end(), k) != kGpuNames.end()) {
      if (gpus != nullptr) {
        fail(fmt::format("two GPU counts ('{}' and another); give one", key));
      }
      gpus = &value;
    }
    const auto by_rate = rate_name(key);
    for (const ThroughputName& n : kThroughputNames) {
      if (k == n.name || (by_rate && &n == &kThroughputNames.front())) {
        if (tput != nullptr) {
          fail(fmt::format("two throughputs ('{}' and another); give one", key));
        }
        tput = &value;
        if (by_rate) {
          rate_unit = *by_rate;
          tput_unit = rate_unit;
        } else {
          tput_unit = n.unit;
        }
      }
    }
  }
  if (gpus == nullptr || tput == nullptr) {
    // A key read as neither, close to a name of the missing one ("gpu", "throughpu"): named first.
    std::vector<std::string> names;
    if (gpus == nullptr) {
      names.assign(kGpuNames.begin(), kGpuNames.end());
    } else {
      for (const ThroughputName& n : kThroughputNames) {
        names.emplace_back(n.name);
      }
    }
    std::string hint;
    for (const auto& [key, value] : item.items()) {
      const std::string k = lower(key);
      const bool read = std::find(kGpuNames.begin(), kGpuNames.end(), k) != kGpuNames.end() || rate_name(key) ||
                        std::any_of(kThroughputNames.begin(), kThroughputNames.end(),
                                    [&k](const ThroughputName& n) { return k == n.name; });
      if (const auto close = closest_names(key, names, 1); !read && !close.empty() && hint.empty()) {
        hint = fmt::format(" ('{}' is not read; did you mean '{}'?)", key, close.front());
      }
    }
    fail(fmt::format("missing {}{}: expected {}", gpus == nullptr ? "the GPU count" : "the throughput", hint,
                     known_names()));
  }
  if (!tput_unit.empty()) {
    unit = std::string(tput_unit);
  }
  return {.gpus = count_of(*gpus), .throughput = throughput_of(*tput)};
}

MeasuredPoints parse_json(std::string_view text, std::string_view origin_view) {
  const std::string origin(origin_view);
  const detail::Json root = detail::parse_json_text(text, origin);
  MeasuredPoints out;
  detail::JsonPointer at;
  const detail::Json* list = &root;
  if (root.is_object()) {
    if (root.contains("unit")) {
      // Blank is no unit: the tables would print figures with nothing to say what they count.
      if (!root["unit"].is_string() ||
          root["unit"].get<std::string>().find_first_not_of(" \t\r\n") == std::string::npos) {
        throw InputError(fmt::format("{}: expected a unit such as \"tokens/s\"", detail::where(origin, at / "unit")));
      }
      out.unit = root["unit"].get<std::string>();
    }
    for (const auto& [key, value] : root.items()) {
      if (key != "unit" && key != "points") {
        throw InputError(fmt::format("{}: unknown field (expected \"unit\" and \"points\")",
                                     detail::where(origin, at / key)));
      }
    }
    if (!root.contains("points")) {
      throw InputError(fmt::format("{}: missing \"points\", the list of measurements", detail::where(origin, at)));
    }
    list = &root["points"];
    at = at / "points";
  }
  if (!list->is_array()) {
    throw InputError(fmt::format("{}: expected a list of points", detail::where(origin, at)));
  }
  std::optional<std::string> column_unit;
  for (std::size_t i = 0; i < list->size(); ++i) {
    out.points.push_back(json_point((*list)[i], origin, at / i, column_unit));
  }
  if (!out.unit) {
    out.unit = column_unit;
  }
  return out;
}

/// The cells of one CSV line (RFC 4180 within a line): a cell in double quotes may hold commas
/// and doubled quotes, as spreadsheets export "1,000". nullopt: a quote that is not closed, or
/// text after a closing quote.
std::optional<std::vector<std::string>> split_csv(std::string_view line) {
  std::vector<std::string> cells;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
      ++i;
    }
    if (i < line.size() && line[i] == '"') {
      std::string cell;
      for (++i;; ++i) {
        if (i >= line.size()) {
          return std::nullopt;
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cell += '"';
            ++i;
            continue;
          }
          ++i;
          break;
        }
        cell += line[i];
      }
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) {
        ++i;
      }
      if (i < line.size() && line[i] != ',') {
        return std::nullopt;
      }
      cells.push_back(trim_field(cell));
    } else {
      const auto comma = line.find(',', i);
      cells.push_back(trim_field(line.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i)));
      i = comma == std::string_view::npos ? line.size() : comma;
    }
    if (i >= line.size()) {
      return cells;
    }
    ++i;  // the comma
  }
}

/// A number cell that did not parse: one holding a comma was quoted ("1,000"), and a thousands
/// separator and a decimal comma cannot be told apart.
std::string cell_message(const std::string& message, std::string_view cell) {
  return cell.find(',') == std::string_view::npos
             ? message
             : message + " (write numbers without thousands separators or decimal commas, e.g. 1000 or 1.5)";
}

MeasuredPoints parse_csv(std::string_view text, std::string_view origin) {
  MeasuredPoints out;
  std::optional<std::size_t> gpu_col;
  std::optional<std::size_t> tput_col;
  std::size_t columns = 0;  // the header's cells, or 2 without one
  bool header_line = false;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto nl = text.find('\n', pos);
    const std::string_view raw = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    // Spaces only: a quote opening the first cell or closing the last is the CSV's own.
    const auto first = raw.find_first_not_of(" \t\r");
    const std::string line(first == std::string_view::npos ? std::string_view()
                                                           : raw.substr(first, raw.find_last_not_of(" \t\r") - first + 1));
    if (line.empty() || line.front() == '#') {
      continue;
    }
    const auto fail = [&](const std::string& message) {
      throw InputError(fmt::format("{}: line {}: {}", origin, line_no, message));
    };
    // A carriage return that ends no line: the file's lines end in CR alone (classic Mac OS,
    // Excel's "CSV (Macintosh)"), and all of it reads as this one line.
    if (line.find('\r') != std::string::npos) {
      fail("the lines end in a carriage return (CR) alone, as classic Mac OS and Excel's \"CSV (Macintosh)\" "
           "write them; save the file with LF or CRLF line endings");
    }
    const std::optional<std::vector<std::string>> split = split_csv(line);
    if (!split) {
      fail(fmt::format("a quoted cell is not closed, or text follows its closing quote; got '{}'", line));
    }
    const std::vector<std::string>& cells = *split;
    if (!gpu_col) {
      if (!to_count(cells.front())) {
        // A header: find the columns by name.
        for (std::size_t c = 0; c < cells.size(); ++c) {
          const std::string k = lower(cells[c]);
          if (std::find(kGpuNames.begin(), kGpuNames.end(), k) != kGpuNames.end()) {
            gpu_col = c;
          }
          for (const ThroughputName& n : kThroughputNames) {
            if (k == n.name) {
              tput_col = c;
              if (!n.unit.empty()) {
                out.unit = std::string(n.unit);
              }
            }
          }
          if (const auto unit = rate_name(cells[c])) {
            tput_col = c;
            out.unit = unit;
          }
        }
        if (!gpu_col || !tput_col) {
          fail(fmt::format("a header needs {}; got '{}'", known_names(), line));
        }
        columns = cells.size();
        header_line = true;
        continue;
      }
      if (cells.size() != 2) {
        fail(fmt::format("without a header each row is gpus,throughput; got '{}'", line));
      }
      gpu_col = 0;
      tput_col = 1;
      columns = 2;
    }
    // A row wider or narrower than the header has its cells in the wrong columns (an unquoted
    // "1,000" splits in two): reading it by position would take the wrong figure.
    if (cells.size() != columns) {
      fail(fmt::format("{} cells, but the {} has {}; got '{}'", cells.size(), header_line ? "header" : "first row",
                       columns, line));
    }
    const auto gpus = to_count(cells[*gpu_col]);
    if (!gpus) {
      fail(cell_message(count_message(cells[*gpu_col]), cells[*gpu_col]));
    }
    const auto tput = to_throughput(cells[*tput_col]);
    if (!tput) {
      fail(cell_message(throughput_message(cells[*tput_col]), cells[*tput_col]));
    }
    out.points.push_back({.gpus = *gpus, .throughput = *tput});
  }
  if (out.points.empty()) {
    throw InputError(fmt::format("{}: no measurements (expected rows of gpus,throughput)", origin));
  }
  return out;
}

}  // namespace

ScalingPoint parse_measured_entry(std::string_view entry, std::string_view field) {
  const std::string e = trim_field(entry);
  const auto eq = e.find('=');
  if (eq == std::string::npos) {
    throw InputError(fmt::format("{}: expected GPUS=THROUGHPUT (e.g. 4=3600), got '{}'", field, e));
  }
  const std::string gpus = trim_field(std::string_view(e).substr(0, eq));
  const std::string tput = trim_field(std::string_view(e).substr(eq + 1));
  const auto n = to_count(gpus);
  if (!n) {
    throw InputError(fmt::format("{}: in '{}', {}", field, e, count_message(gpus)));
  }
  const auto x = to_throughput(tput);
  if (!x) {
    throw InputError(fmt::format("{}: in '{}', {}", field, e, throughput_message(tput)));
  }
  return {.gpus = *n, .throughput = *x};
}

MeasuredPoints parse_measured_text(std::string_view text, std::string_view origin) {
  // Editors on Windows save UTF-8 with a byte-order mark; it is neither JSON's nor CSV's.
  if (constexpr std::string_view kBom = "\xEF\xBB\xBF"; text.starts_with(kBom)) {
    text.remove_prefix(kBom.size());
  }
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    throw InputError(fmt::format("{}: empty file (expected JSON or CSV rows of gpus,throughput)", origin));
  }
  if (text[first] == '{' || text[first] == '[') {
    return parse_json(text, origin);
  }
  return parse_csv(text, origin);
}

}  // namespace gpuplan
