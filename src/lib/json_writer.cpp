#include "detail/json_writer.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuplan::detail {
namespace {

/// Printable ASCII other than '"' and '\\': written as is. Anything else (control characters,
/// UTF-8, invalid UTF-8) goes through nlohmann's own escaping, so the bytes stay its bytes.
bool plain(std::string_view text) {
  // Eight bytes at a time (a batch answer is some thousand strings), with the bit tricks that
  // tell whether any byte of a word is below, above or equal to a value (exact for the word).
  // The bytes past the last whole word are checked as one more word that overlaps the one before,
  // and four to seven bytes as two overlapping halves: a byte checked twice is still the same
  // byte, and a loop over the last bytes one by one cost more than the words.
  constexpr std::uint64_t kOnes = ~std::uint64_t{0} / 255;
  constexpr std::uint64_t kHighs = kOnes * 0x80;
  const auto zero_lane = [](std::uint64_t v) { return (v - kOnes) & ~v & kHighs; };
  const auto clean = [&zero_lane](std::uint64_t x) {
    const std::uint64_t below = (x - kOnes * 0x20) & ~x & kHighs;
    const std::uint64_t above = ((x + kOnes * (127 - 0x7e)) | x) & kHighs;
    return (below | above | zero_lane(x ^ (kOnes * '"')) | zero_lane(x ^ (kOnes * '\\'))) == 0;
  };
  const char* p = text.data();
  const std::size_t n = text.size();
  if (n >= 8) {
    const auto word = [p](std::size_t at) {
      std::uint64_t x = 0;
      std::memcpy(&x, p + at, 8);
      return x;
    };
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      if (!clean(word(i))) {
        return false;
      }
    }
    return i == n || clean(word(n - 8));
  }
  if (n >= 4) {
    std::uint32_t first = 0;
    std::uint32_t last = 0;
    std::memcpy(&first, p, 4);
    std::memcpy(&last, p + n - 4, 4);
    return clean(first | (static_cast<std::uint64_t>(last) << 32));
  }
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e || c == '"' || c == '\\') {
      return false;
    }
  }
  return true;
}

/// "00" "01" ... "99".
constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> pairs{};
  for (std::size_t i = 0; i < 100; ++i) {
    pairs[2 * i] = static_cast<char>('0' + i / 10);
    pairs[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return pairs;
}();

/// `text` escaped as nlohmann escapes it, quotes included (for text that is not plain()).
std::string escaped(std::string_view text) {
  using Json = nlohmann::ordered_json;
  return Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

/// `x` < 10^8 as eight ASCII digits, leading zeros included, in memory order (the first digit in
/// the lowest byte): the two four-digit halves, their two-digit quarters and their digits are
/// split in parallel lanes of one 64-bit word, by multiplications that divide exactly in the
/// lanes' ranges (x * 10486 >> 20 is x / 100 below 10^4; x * 103 >> 10 is x / 10 below 100).
/// Some 15 instructions for eight digits, where a division by 100 per pair took 40.
static_assert(std::endian::native == std::endian::little, "eight_digits() lays digits out for a little-endian store");
std::uint64_t eight_digits(std::uint32_t x) {
  const std::uint64_t halves = (x / 10'000) | (static_cast<std::uint64_t>(x % 10'000) << 32);
  const std::uint64_t hundreds = ((halves * 10'486) >> 20) & ((std::uint64_t{0x7f} << 32) | 0x7f);
  const std::uint64_t quarters = hundreds | ((halves - hundreds * 100) << 16);
  const std::uint64_t tens = ((quarters * 103) >> 10) & 0x000f'000f'000f'000full;
  return tens | ((quarters - tens * 10) << 8);
}

/// Leading zero digits of eight_digits()'s word (not all zero).
int leading_zero_digits(std::uint64_t lanes) { return std::countr_zero(lanes) / 8; }

/// Bytes digits_before() may write before its `end` (three words of eight digits).
constexpr std::size_t kDigitsRoom = 24;

/// `number`'s decimal digits, written so that the last one ends just before `end`, with up to
/// kDigitsRoom bytes before `end` written; returns the first digit. Eight digits at a time.
char* digits_before(char* end, std::uint64_t number) {
  constexpr std::uint64_t kEight = 100'000'000;
  constexpr std::uint64_t kAscii = 0x3030'3030'3030'3030ull;
  const auto store = [](char* at, std::uint64_t lanes) {
    const std::uint64_t text = lanes + kAscii;
    std::memcpy(at, &text, 8);
  };
  const auto pair = [](char* at, std::uint64_t two_digits) {
    std::memcpy(at, kDigitPairs.data() + 2 * two_digits, 2);
  };
  // Counts below 10^4 (context tokens, layers, batches) in pairs: fewer instructions than a word.
  if (number < 100) {
    if (number < 10) {
      end[-1] = static_cast<char>('0' + number);
      return end - 1;
    }
    pair(end - 2, number);
    return end - 2;
  }
  if (number < 10'000) {
    const std::uint64_t high = number / 100;
    pair(end - 2, number - high * 100);
    if (high < 10) {
      end[-3] = static_cast<char>('0' + high);
      return end - 3;
    }
    pair(end - 4, high);
    return end - 4;
  }
  if (number < kEight) {
    const std::uint64_t low = eight_digits(static_cast<std::uint32_t>(number));
    store(end - 8, low);
    return end - 8 + leading_zero_digits(low);
  }
  const std::uint64_t high_part = number / kEight;
  store(end - 8, eight_digits(static_cast<std::uint32_t>(number - high_part * kEight)));
  if (high_part < kEight) {
    const std::uint64_t high = eight_digits(static_cast<std::uint32_t>(high_part));
    store(end - 16, high);
    return end - 16 + leading_zero_digits(high);
  }
  const std::uint64_t top_part = high_part / kEight;  // below 10^4: a 64-bit number has 20 digits
  store(end - 16, eight_digits(static_cast<std::uint32_t>(high_part - top_part * kEight)));
  if (top_part < 10) {  // 17 digits: a double's shortest digits, most often
    end[-17] = static_cast<char>('0' + top_part);
    return end - 17;
  }
  const std::uint64_t top = eight_digits(static_cast<std::uint32_t>(top_part));
  store(end - 24, top);
  return end - 24 + leading_zero_digits(top);
}

/// A finite `number` as nlohmann lays numbers out (as printf's %g: fixed notation for decimal
/// exponents -4 to 15, ".0" after a whole number, else d.ddde+XX), with the shortest digits that
/// read back as `number`, from fmt's Dragonbox (the library's own shortest round-trip, exported
/// by libfmt). A perf answer holds 76 numbers: nlohmann's Grisu2 took some 500 instructions a
/// number, std::to_chars (Ryu) as many; Dragonbox about a third. Grisu2 now and then gave one
/// digit more, or another last digit: both read back as the same double. The layout is written
/// with fixed-size copies (a variable-length memmove costs more than the number): needs 64
/// bytes at `out`.
char* shortest_text(char* out, double number) {
  if (std::signbit(number)) {
    *out++ = '-';
    number = -number;
  }
  if (!(number > 0.0)) {
    std::memcpy(out, "0.0", 3);
    return out + 3;
  }
  // A whole number below 10^15 (byte and FLOP counts): its shortest digits are its own (no
  // other decimal of as few digits lies within half a unit of it), written as digits then ".0".
  constexpr double kWholeBelow = 1e15;
  // (A conversion to an integer, not std::floor: without SSE4.1 that is a call into libm.)
  const auto truncated = number < kWholeBelow ? static_cast<std::uint64_t>(number) : 0;
  if (truncated > 0 && !(number > static_cast<double>(truncated))) {
    constexpr int kDigits = 20;
    char whole[kDigitsRoom + kDigits]{};
    const char* first = digits_before(whole + kDigitsRoom, truncated);
    const auto k = static_cast<std::size_t>(whole + kDigitsRoom - first);
    std::memcpy(out, first, kDigits);
    std::memcpy(out + k, ".0", 2);
    return out + k + 2;
  }
  const auto decimal = fmt::detail::dragonbox::to_decimal(number);  // significand x 10^exponent
  // The digits (at most 17) end at digits + kDigitsRoom, with kCopy readable bytes after any of them.
  constexpr int kCopy = 20;
  char digits[kDigitsRoom + kCopy]{};
  const char* first = digits_before(digits + kDigitsRoom, decimal.significand);
  const int k = static_cast<int>(digits + kDigitsRoom - first);  // digit count
  const int n = k + decimal.exponent;                       // where the decimal point goes
  constexpr int kMinExp = -4;                               // nlohmann's bounds (its to_chars)
  constexpr int kMaxExp = std::numeric_limits<double>::digits10;
  if (k <= n && n <= kMaxExp) {  // digits[000].0
    std::memcpy(out, first, kCopy);
    std::memset(out + k, '0', kMaxExp);
    std::memcpy(out + n, ".0", 2);
    return out + n + 2;
  }
  if (0 < n && n <= kMaxExp) {  // dig.its
    std::memcpy(out, first, kCopy);
    out[n] = '.';
    std::memcpy(out + n + 1, first + n, kCopy);
    return out + k + 1;
  }
  if (kMinExp < n && n <= 0) {  // 0.[000]digits
    std::memcpy(out, "0.0000", 2 - kMinExp);
    std::memcpy(out + 2 - n, first, kCopy);
    return out + 2 - n + k;
  }
  // d[.igits]e+XX: at least two exponent digits, as printf's %g.
  out[0] = first[0];
  char* p = out + 1;
  if (k > 1) {
    *p++ = '.';
    std::memcpy(p, first + 1, kCopy);
    p += k - 1;
  }
  const int e = n - 1;
  *p++ = 'e';
  *p++ = e < 0 ? '-' : '+';
  const auto magnitude = static_cast<unsigned>(e < 0 ? -e : e);
  if (magnitude >= 100) {
    *p++ = static_cast<char>('0' + magnitude / 100);
  }
  std::memcpy(p, kDigitPairs.data() + 2 * (magnitude % 100), 2);
  return p + 2;
}

}  // namespace

JsonWriter::JsonWriter(std::string& out, int indent) : out_(out), indent_(indent) {}

void JsonWriter::flush() {
  out_.append(stage_, used_);
  used_ = 0;
}

void JsonWriter::put(std::string_view text) {
  if (text.size() > kStage) {
    flush();
    out_.append(text);
    return;
  }
  std::memcpy(room(text.size()), text.data(), text.size());
  used_ += text.size();
}

void JsonWriter::newline_indent(std::size_t depth) {
  const std::size_t spaces = depth * static_cast<std::size_t>(indent_);
  if (spaces + 1 > kStage) {
    put("\n");
    flush();
    out_.append(spaces, ' ');
    return;
  }
  char* p = room(spaces + 1);
  *p = '\n';
  std::memset(p + 1, ' ', spaces);
  used_ += spaces + 1;
}

void JsonWriter::separate_indented() {
  if (has_items_) {
    *room(1) = ',';
    ++used_;
  }
  newline_indent(depth_);
}

void JsonWriter::open(char bracket) {
  next_item();
  *room(1) = bracket;
  ++used_;
  ++depth_;
  has_items_ = false;
}

void JsonWriter::close(char bracket) {
  --depth_;
  // nlohmann writes an empty container as {} or [] even when indenting.
  if (has_items_ && indent_ >= 0) {
    newline_indent(depth_);
  }
  *room(1) = bracket;
  ++used_;
  has_items_ = true;  // the parent holds this container
  done_if_top();
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

JsonWriter& JsonWriter::other_key(std::string_view name) {
  next_item();
  if (plain(name)) {
    put("\"");
    put(name);
    put("\"");
  } else {
    put(escaped(name));
  }
  put(indent_ >= 0 ? std::string_view(": ") : std::string_view(":"));
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  next_item();
  if (plain(text)) {
    *room(1) = '"';
    ++used_;
    put(text);
    *room(1) = '"';
    ++used_;
  } else {
    put(escaped(text));
  }
  done_if_top();
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  next_item();
  if (!std::isfinite(number)) {
    put("null");  // as nlohmann writes them
  } else {
    constexpr std::size_t kMaxText = 64;
    char* p = room(kMaxText);
    const char* end = shortest_text(p, number);
    used_ += static_cast<std::size_t>(end - p);
  }
  done_if_top();
  return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t number) {
  if (number >= 0) {
    return unsigned_integer(static_cast<std::uint64_t>(number));
  }
  next_item();
  const fmt::format_int text(number);
  put(std::string_view(text.data(), text.size()));
  done_if_top();
  return *this;
}

JsonWriter& JsonWriter::unsigned_integer(std::uint64_t number) {
  next_item();
  if (number < 10) {  // 0, and TP, PP, EP: a fit answer's most frequent numbers
    *room(1) = static_cast<char>('0' + number);
    ++used_;
    done_if_top();
    return *this;
  }
  // Into a local buffer, then a fixed-size copy (the length varies, a fixed copy is a few
  // moves): a document holds a few hundred counts and byte sizes.
  constexpr std::size_t kMaxDigits = 20;
  char digits[kDigitsRoom + kMaxDigits]{};
  const char* first = digits_before(digits + kDigitsRoom, number);
  const auto size = static_cast<std::size_t>(digits + kDigitsRoom - first);
  std::memcpy(room(kMaxDigits), first, kMaxDigits);
  used_ += size;
  done_if_top();
  return *this;
}

JsonWriter& JsonWriter::null() {
  next_item();
  put("null");
  done_if_top();
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
