#include "detail/json_writer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuplan::detail {
namespace {

/// Printable ASCII other than '"' and '\\': written as is. Anything else (control characters,
/// UTF-8, invalid UTF-8) goes through nlohmann's own escaping, so the bytes stay its bytes.
bool plain(std::string_view text) {
  // Eight bytes at a time (a batch answer is some thousand strings), with the bit tricks that
  // tell whether any byte of a word is below, above or equal to a value (exact for the word).
  constexpr std::uint64_t kOnes = ~std::uint64_t{0} / 255;
  constexpr std::uint64_t kHighs = kOnes * 0x80;
  const auto zero_lane = [](std::uint64_t v) { return (v - kOnes) & ~v & kHighs; };
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t x = 0;
    std::memcpy(&x, text.data() + i, 8);
    const std::uint64_t below = (x - kOnes * 0x20) & ~x & kHighs;
    const std::uint64_t above = ((x + kOnes * (127 - 0x7e)) | x) & kHighs;
    if ((below | above | zero_lane(x ^ (kOnes * '"')) | zero_lane(x ^ (kOnes * '\\'))) != 0) {
      return false;
    }
  }
  for (const char c : text.substr(i)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e || c == '"' || c == '\\') {
      return false;
    }
  }
  return true;
}

/// `text` in quotes, then `after` (": " after a key).
void quoted(std::string& out, std::string_view text, std::string_view after = {}) {
  if (plain(text)) {
    const std::size_t at = out.size();
    out.resize(at + text.size() + 2 + after.size());
    char* p = out.data() + at;
    *p++ = '"';
    p = std::copy(text.begin(), text.end(), p);
    *p++ = '"';
    std::copy(after.begin(), after.end(), p);
    return;
  }
  using Json = nlohmann::ordered_json;
  out += Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
  out.append(after);
}

}  // namespace

JsonWriter::JsonWriter(std::string& out, int indent) : out_(out), indent_(indent) {}

void JsonWriter::newline_indent(std::size_t depth) {
  out_ += '\n';
  out_.append(depth * static_cast<std::size_t>(indent_), ' ');
}

void JsonWriter::next_item() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (items_.empty()) {
    return;
  }
  if (items_.back() > 0) {
    out_ += ',';
  }
  if (indent_ >= 0) {
    newline_indent(items_.size());
  }
  ++items_.back();
}

void JsonWriter::open(char bracket) {
  next_item();
  out_ += bracket;
  items_.push_back(0);
}

void JsonWriter::close(char bracket) {
  const std::size_t items = items_.back();
  items_.pop_back();
  // nlohmann writes an empty container as {} or [] even when indenting.
  if (items > 0 && indent_ >= 0) {
    newline_indent(items_.size());
  }
  out_ += bracket;
}

JsonWriter& JsonWriter::begin_object() {
  open('{');
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  close('}');
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  open('[');
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  close(']');
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  next_item();
  quoted(out_, name, indent_ >= 0 ? std::string_view(": ") : std::string_view(":"));
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  next_item();
  quoted(out_, text);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  next_item();
  out_ += b ? std::string_view("true") : std::string_view("false");
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  next_item();
  if (!std::isfinite(number)) {
    out_ += "null";  // as nlohmann writes them
    return *this;
  }
  std::array<char, 64> buffer{};
  const char* end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), number);
  out_.append(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
  return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t number) {
  next_item();
  const fmt::format_int text(number);
  out_.append(text.data(), text.size());
  return *this;
}

JsonWriter& JsonWriter::unsigned_integer(std::uint64_t number) {
  next_item();
  const fmt::format_int text(number);
  out_.append(text.data(), text.size());
  return *this;
}

JsonWriter& JsonWriter::null() {
  next_item();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::value(const std::vector<std::string>& items) {
  begin_array();
  for (const std::string& item : items) {
    value(item);
  }
  return end_array();
}

}  // namespace gpuplan::detail
