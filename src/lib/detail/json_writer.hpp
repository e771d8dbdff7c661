#pragma once
// JSON written as it is produced, into a caller's buffer: the bytes nlohmann's dump() gives
// for the same ordered_json document (two-space indentation, or one line), without building the
// document first; numbers carry the shortest digits that read back (nlohmann's Grisu2 now and then
// writes a 17th digit, or another last one). fit and perf answer `gpuplan batch` 100,000 times a second with it; a DOM of
// some 150 small allocations per answer cost more than the answer itself.

#include <concepts>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::detail {

/// A member name. A string literal is checked when compiled (plain printable ASCII needs no
/// escaping, which the writer then skips); any other name is checked when written.
class JsonKey {
 public:
  // NOLINTNEXTLINE(google-explicit-constructor): w.member("tp", ...) is the point
  consteval JsonKey(const char* literal) : text_(literal), plain_(plain_ascii(text_)) {}
  // NOLINTNEXTLINE(google-explicit-constructor)
  JsonKey(std::string_view name) : text_(name), plain_(false) {}
  // NOLINTNEXTLINE(google-explicit-constructor)
  JsonKey(const std::string& name) : text_(name), plain_(false) {}

  [[nodiscard]] constexpr std::string_view text() const { return text_; }
  /// Known to need no escaping.
  [[nodiscard]] constexpr bool plain() const { return plain_; }

 private:
  static constexpr bool plain_ascii(std::string_view text) {
    for (const char c : text) {
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }
  std::string_view text_;
  bool plain_;
};

class JsonWriter {
 public:
  /// `indent` 2: nlohmann's dump(2); -1: dump(-1), one line. Appends to `out`: the text is
  /// there whenever the top-level value is complete (and when the writer is destroyed).
  JsonWriter(std::string& out, int indent);
  ~JsonWriter() { flush(); }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// The next member's name (inside an object).
  [[gnu::always_inline]] JsonWriter& key(JsonKey name) {
    // Inline, always: a literal name's length is known here, so the copy is a few moves. Left to
    // itself g++ outlined it from the larger renderers (perf's), where every name then took a
    // call and a memcpy of unknown length: some 9k instructions a perf answer.
    const std::string_view text = name.text();
    if (!name.plain() || text.size() + 4 > kStage) {
      return other_key(text);
    }
    next_item();
    char* p = room(text.size() + 4);
    *p++ = '"';
    std::memcpy(p, text.data(), text.size());
    p += text.size();
    *p++ = '"';
    *p++ = ':';
    if (indent_ >= 0) {
      *p++ = ' ';
    }
    used_ = static_cast<std::size_t>(p - stage_);
    after_key_ = true;
    return *this;
  }

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(bool b) {
    // Inline, as a fixed five-byte copy ("true" and a byte past it, left unused): a fit answer
    // holds some forty flags, and the call into put() cost more than the flag.
    next_item();
    std::memcpy(room(5), b ? "true " : "false", 5);
    used_ += b ? 4 : 5;
    done_if_top();
    return *this;
  }
  JsonWriter& value(double number);  ///< shortest round-trip text; NaN and infinities: null
  template <std::integral T>
    requires(!std::same_as<T, bool> && !std::same_as<T, char>)
  JsonWriter& value(T number) {
    if constexpr (std::is_signed_v<T>) {
      return integer(static_cast<std::int64_t>(number));
    } else {
      if (number < 10) {
        // Inline: 0 and the TP, PP, EP and DP degrees are a fit answer's most frequent numbers.
        next_item();
        *room(1) = static_cast<char>('0' + number);
        ++used_;
        done_if_top();
        return *this;
      }
      return unsigned_integer(static_cast<std::uint64_t>(number));
    }
  }
  JsonWriter& null();
  template <typename T>
  JsonWriter& value(const std::optional<T>& v) {
    return v ? value(*v) : null();
  }
  /// An array of strings.
  JsonWriter& value(const std::vector<std::string>& items);

  /// key(name).value(v); always inlined, for key()'s sake
  template <typename T>
  [[gnu::always_inline]] JsonWriter& member(JsonKey name, const T& v) {
    key(name);
    return value(v);
  }

 private:
  /// key() for a name that may need escaping.
  JsonWriter& other_key(std::string_view name);
  JsonWriter& integer(std::int64_t number);
  JsonWriter& unsigned_integer(std::uint64_t number);  ///< any number; value() writes those below 10
  /// Separator and indentation before a value in an array, or before a key.
  void next_item() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (depth_ == 0) {
      return;
    }
    if (indent_ < 0) {
      if (has_items_) {
        *room(1) = ',';
        ++used_;
      }
    } else {
      separate_indented();
    }
    has_items_ = true;
  }
  void separate_indented();
  void open(char bracket);
  void close(char bracket);
  void newline_indent(std::size_t depth);

  // Text is staged in a fixed buffer and appended to out_ in blocks: one std::string append per
  // member cost more than writing the member.
  static constexpr std::size_t kStage = 2048;
  /// Room for `n` more bytes (n <= kStage) at the end of the staged text.
  char* room(std::size_t n) {
    if (kStage - used_ < n) {
      flush();
    }
    return stage_ + used_;
  }
  void put(std::string_view text);
  /// Staged text to out_.
  void flush();
  /// A complete top-level value goes to out_ at once.
  void done_if_top() {
    if (depth_ == 0) {
      flush();
    }
  }

  std::string& out_;
  int indent_;
  bool after_key_ = false;
  // Only whether the innermost open container has items matters (for the comma before the next
  // one, and for {} and [] when empty): after a container closes, its parent has one.
  std::size_t depth_ = 0;
  bool has_items_ = false;
  std::size_t used_ = 0;
  char stage_[kStage];
};

}  // namespace gpuplan::detail
