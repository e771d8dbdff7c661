#include "detail/document.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include <gpuplan/error.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/units.hpp>

namespace gpuplan::detail {
namespace {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
  std::string out = "\"";
  for (char c : text) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  return out + "\"";
}

std::string md_cell(std::string_view text) { return md_text(text, false); }

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// A CSV cell is read by programs: "32,768" (group_digits) is 32768 there, so a number grouped
// in threes loses its separators, also inside a cell such as "2,261 (1,773-3,437)". Only a run
// of digits and commas that is exactly a grouped number changes: a list ("1,8", GPUs per instance)
// does not, nor a decimal's fraction.
std::string csv_ungrouped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (!is_digit(text[i]) || (i > 0 && (is_digit(text[i - 1]) || text[i - 1] == '.' || text[i - 1] == ','))) {
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && (is_digit(text[end]) || text[end] == ',')) {
      ++end;
    }
    const std::string_view run = text.substr(i, end - i);
    // \d{1,3}(,\d{3})+ : the first group of one to three digits, then commas each before three.
    const std::size_t first = run.find(',');
    bool grouped = first != std::string_view::npos && first >= 1 && first <= 3;
    for (std::size_t at = first; grouped && at < run.size(); at += 4) {
      grouped = run[at] == ',' && at + 3 < run.size() && is_digit(run[at + 1]) && is_digit(run[at + 2]) &&
                is_digit(run[at + 3]) && (at + 4 == run.size() || run[at + 4] == ',');
    }
    for (char c : run) {
      if (!grouped || c != ',') {
        out += c;
      }
    }
    i = end;
  }
  return out;
}

void render_text_table(const Table& t, std::string& out) {
  const std::vector<bool> numeric = numeric_columns(t);
  std::vector<std::size_t> width(t.header.size(), 0);
  const auto measure = [&width](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  };
  measure(t.header);
  for (const auto& row : t.rows) {
    measure(row);
  }
  const auto line = [&](const std::vector<std::string>& row) {
    std::string text;
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      const std::string gap = i == 0 ? "" : "  ";
      text += numeric[i] ? fmt::format("{}{:>{}}", gap, cell, width[i])
                         : fmt::format("{}{:<{}}", gap, cell, width[i]);
    }
    while (!text.empty() && text.back() == ' ') {
      text.pop_back();
    }
    out += text + "\n";
  };
  if (!t.title.empty()) {
    out += t.title + "\n";
  }
  line(t.header);
  for (const auto& row : t.rows) {
    line(row);
  }
}

}  // namespace

std::string md_text(std::string_view text, bool line_start) {
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    const bool escape =
        c == '\\' || c == '|' || c == '*' || c == '`' || c == '[' || c == '~' ||
        // An HTML tag, comment or autolink ("<!--" hid the rest of a GitHub comment); "<= 50" stays.
        (c == '<' && (std::isalpha(static_cast<unsigned char>(next)) != 0 || next == '/' || next == '!' || next == '?')) ||
        (c == '&' && (alnum(next) || next == '#')) ||  // an entity
        // Emphasis opens or closes at a word's edge; GitHub ignores intraword '_' (max_itl_ms).
        (c == '_' && !(i > 0 && alnum(text[i - 1]) && alnum(next))) ||
        // A heading, quote or list marker at the start of a line.
        (line_start && i == 0 && (c == '#' || c == '>' || c == '-' || c == '+' || c == '='));
    if (escape) {
      out += '\\';
    }
    out += c;
  }
  return out;
}

// A column of numbers (or "-") is right-aligned; labels and names are left-aligned.
std::vector<bool> numeric_columns(const Table& t) {
  std::vector<bool> numeric(t.header.size(), !t.rows.empty());
  for (const auto& row : t.rows) {
    for (std::size_t i = 0; i < row.size() && i < numeric.size(); ++i) {
      const std::string& c = row[i];
      const bool number = !c.empty() && (std::isdigit(static_cast<unsigned char>(c[0])) != 0 || c == "-" ||
                                         ((c[0] == '-' || c[0] == '+') && c.size() > 1));
      numeric[i] = numeric[i] && number;
    }
  }
  if (!numeric.empty()) {
    numeric[0] = false;
  }
  return numeric;
}

std::string render_document(const Document& doc, Format format) {
  std::string out;
  switch (format) {
    case Format::table: {
      for (const auto& h : doc.heading) {
        out += h + "\n";
      }
      for (const Table& t : doc.tables) {
        out += "\n";
        render_text_table(t, out);
      }
      if (!doc.footer.empty()) {
        out += "\n";
      }
      for (const auto& f : doc.footer) {
        out += f + "\n";
      }
      return out;
    }
    case Format::csv: {
      for (std::size_t n = 0; n < doc.tables.size(); ++n) {
        const Table& t = doc.tables[n];
        if (n > 0) {
          out += "\n";
        }
        const auto row_out = [&](std::string_view first, const std::vector<std::string>& row) {
          out += csv_field(first);
          for (const auto& cell : row) {
            out += "," + csv_field(csv_ungrouped(cell));
          }
          out += "\n";
        };
        row_out("table", t.header);
        for (const auto& row : t.rows) {
          row_out(t.title, row);
        }
      }
      return out;
    }
    case Format::markdown: {
      for (const auto& h : doc.heading) {
        out += h + "\n\n";
      }
      for (const Table& t : doc.tables) {
        if (!t.title.empty()) {
          out += "**" + md_cell(t.title) + "**\n\n";
        }
        const std::vector<bool> numeric = numeric_columns(t);
        std::string sep = "|";
        out += "|";
        for (std::size_t i = 0; i < t.header.size(); ++i) {
          out += " " + md_cell(t.header[i]) + " |";
          sep += numeric[i] ? " ---: |" : " --- |";
        }
        out += "\n" + sep + "\n";
        for (const auto& row : t.rows) {
          out += "|";
          for (const auto& cell : row) {
            out += " " + md_cell(cell) + " |";
          }
          out += "\n";
        }
        out += "\n";
      }
      for (const auto& f : doc.footer) {
        out += "- " + md_text(f, true) + "\n";
      }
      return out;
    }
    case Format::json:
      break;
  }
  throw std::logic_error("render_document: JSON is rendered from the result, not a document");
}

std::string expert_groups_text(const Layout& layout) {
  return layout.expert_groups() > 1 ? fmt::format(", {} EP groups", layout.expert_groups()) : std::string();
}

std::string cached_input_text(std::uint64_t cached) {
  // Said wherever figures rest on it: a cached prefix is not prefilled (perf.cpp).
  return cached > 0 ? fmt::format(" ({} cached)", cached) : std::string();
}

std::string group_digits(std::uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  const std::size_t first = digits.size() % 3;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (i - first) % 3 == 0 && i >= first) {
      out += ',';
    }
    out += digits[i];
  }
  return out;
}

void not_finite(std::string_view what) { throw std::logic_error(fmt::format("{} is not a finite number", what)); }

std::string_view unit_name(ByteUnits units) { return units == ByteUnits::gib ? "GiB" : "GB"; }

std::string bytes_value(double bytes, ByteUnits units) {
  const double scale = units == ByteUnits::gib ? units::kGiB : units::kGB;
  return fmt::format("{:.2f}", checked(bytes, "a byte count") / scale);
}

std::string per_sequence_bytes_value(double bytes, ByteUnits units) {
  const double scale = units == ByteUnits::gib ? units::kGiB : units::kGB;
  const double value = checked(bytes, "a byte count") / scale;
  // A hybrid's recurrent state per sequence is megabytes (Jamba-Large at TP 8: 4.9 MB), which two
  // decimals of GB print as 0.00: two significant digits instead (0.0049), never an exponent.
  if (value > 0 && value < 0.005) {
    const int decimals = std::clamp(1 - static_cast<int>(std::floor(std::log10(value))), 2, 12);
    return fmt::format("{:.{}f}", value, decimals);
  }
  return fmt::format("{:.2f}", value);
}

}  // namespace gpuplan::detail
