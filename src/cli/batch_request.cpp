#include "batch_request.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/flag_words.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/plan_file.hpp>

#include "common.hpp"

namespace gpuplan::cli {
namespace {

using Json = nlohmann::json;

// "--model=" with nothing after the '=' would make the option take the next field as its value
// ("model": "" answered "--gpu is required").
constexpr std::string_view kEmptyValue = "an empty string; give a value or leave the field out";

/// Fields a batch line may not carry, and why: batch writes JSON, answers every line whatever
/// its verdict, and reads the catalog once for all lines.
std::optional<std::string_view> refused(std::string_view field) {
  if (field == "format") {
    return "batch always writes JSON, one line per request";
  }
  if (field == "check") {
    return "exit codes do not apply to a batch line; the JSON says whether it fits or is within budget";
  }
  if (field == "catalog") {
    return "give --catalog to 'gpuplan batch' itself: the catalog is read once for every line";
  }
  if (field == "help") {
    return "not a request field";
  }
  return std::nullopt;
}

/// The values `value` gives `field`: its items when the option splits at a delimiter.
std::size_t list_items(const RequestField& field, std::string_view value) {
  const char delimiter = field.option == nullptr ? '\0' : field.option->get_delimiter();
  return delimiter == '\0' ? 1 : static_cast<std::size_t>(std::count(value.begin(), value.end(), delimiter)) + 1;
}

/// "batch": "1,,8": CLI11 would drop the empty item and answer the rest.
void check_items(const std::string& key, const RequestField& field, std::string_view value) {
  if (field.option != nullptr) {
    if (auto why = empty_list_item(*field.option, value)) {
      throw RequestError{.field = key, .message = std::move(*why)};
    }
  }
}

/// One field's JSON value: a scalar's text, or an array of them.
struct Value {
  enum class Kind { string, number, boolean, null, array } kind = Kind::null;
  std::string text;                 ///< string or number text, "true"/"false"
  std::vector<std::string> items;   ///< array elements (scalars only)
};

struct Member {
  std::string key;
  Value value;
};

/// "parse error at column 9: ..." from nlohmann's "[json.exception.parse_error.101] parse error at
/// line 1, column 9: ...": the tag dropped, and the line, as the JSON is one line.
std::string parse_error_text(const nlohmann::detail::exception& e) {
  std::string_view what = e.what();
  if (const auto tag = what.find("] "); tag != std::string_view::npos) {
    what.remove_prefix(tag + 2);
  }
  std::string text(what);
  if (const auto at = text.find("at line 1, column"); at != std::string::npos) {
    text.replace(at, std::string_view("at line 1, column").size(), "at column");
  }
  return text;
}

/// JSON syntax alone: any value at any depth is taken; the first syntax error is kept.
class SyntaxOnly final : public nlohmann::json_sax<Json> {
 public:
  std::optional<std::string> error;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error = fmt::format("not valid JSON: {}", parse_error_text(e));
    return false;
  }
};

/// SAX handler for a flat object of scalars and arrays of scalars (nothing deeper).
class FlatObject final : public nlohmann::json_sax<Json> {
 public:
  std::vector<Member> members;
  std::optional<RequestError> error;

  bool null() override { return scalar(Value::Kind::null, "null"); }
  bool boolean(bool v) override { return scalar(Value::Kind::boolean, v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override { return scalar(Value::Kind::number, std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(Value::Kind::number, std::to_string(v)); }
  // The number as written, so "0.95" reaches the option exactly as on the command line.
  bool number_float(number_float_t, const string_t& text) override { return scalar(Value::Kind::number, text); }
  bool string(string_t& v) override { return scalar(Value::Kind::string, std::move(v)); }
  bool binary(binary_t&) override { return fail("", "binary values are not JSON text"); }
  bool start_object(std::size_t) override {
    if (depth_ == 0) {
      depth_ = 1;
      return true;
    }
    return fail(current_key(), "expected a string, number, boolean or array of them, got an object");
  }
  bool key(string_t& k) override {
    if (std::any_of(members.begin(), members.end(), [&k](const Member& m) { return m.key == k; })) {
      return fail(k, "given twice");
    }
    members.push_back(Member{.key = std::move(k), .value = {}});
    return true;
  }
  bool end_object() override {
    depth_ = 0;
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ != 1) {
      return fail(current_key(), depth_ == 0 ? "expected a JSON object, got an array"
                                              : "expected a string, number, boolean or array of them, got nested arrays");
    }
    depth_ = 2;
    members.back().value.kind = Value::Kind::array;
    return true;
  }
  bool end_array() override {
    depth_ = 1;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    const std::string text = parse_error_text(e);
    // A bad value (1e999) names its field; a bad key or structure, the line.
    const bool in_value = depth_ >= 1 && !members.empty() && members.back().value.text.empty() &&
                          members.back().value.items.empty() && members.back().value.kind == Value::Kind::null;
    return fail(in_value ? current_key() : "", fmt::format("not valid JSON: {}", text));
  }

 private:
  bool scalar(Value::Kind kind, std::string text) {
    if (depth_ == 0) {
      return fail("", "expected a JSON object such as {\"command\": \"fit\", ...}");
    }
    Value& v = members.back().value;
    if (depth_ == 2) {
      if (kind != Value::Kind::string && kind != Value::Kind::number) {
        return fail(current_key(), fmt::format("array items must be strings or numbers, got {}", text));
      }
      v.items.push_back(std::move(text));
      return true;
    }
    v.kind = kind;
    v.text = std::move(text);
    return true;
  }
  bool fail(std::string field, std::string message) {
    if (!error) {
      error = RequestError{.field = std::move(field), .message = std::move(message)};
    }
    return false;
  }
  [[nodiscard]] std::string current_key() const { return members.empty() ? std::string() : members.back().key; }
  int depth_ = 0;
};

/// The usual request line, read without nlohmann's SAX parser (which took more instructions than
/// the rest of reading the request): an object whose keys and strings are printable ASCII without
/// escapes, whose numbers are whole and unsigned without a leading zero, and whose other values are
/// true, false, null or arrays of those strings and numbers. Such a line gives the very members
/// FlatObject collects. Anything else (escapes, UTF-8, signs, fractions, nesting, a key given
/// twice, any error) returns false, and the SAX parse reads the line: its members, its messages.
class SimpleLine {
 public:
  explicit SimpleLine(std::string_view text) : text_(text) {}

  bool read(std::vector<Member>& members) {
    space();
    if (!take('{')) {
      return false;
    }
    space();
    if (!take('}')) {
      do {
        space();
        std::string_view key;
        if (!string(key) || std::any_of(members.begin(), members.end(), [key](const Member& m) { return m.key == key; })) {
          return false;
        }
        space();
        if (!take(':')) {
          return false;
        }
        space();
        members.push_back(Member{.key = std::string(key), .value = {}});
        if (!value(members.back().value)) {
          return false;
        }
        space();
      } while (take(','));
      if (!take('}')) {
        return false;
      }
    }
    space();
    return at_ == text_.size();
  }

 private:
  [[nodiscard]] char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  bool take(char c) {
    if (peek() != c) {
      return false;
    }
    ++at_;
    return true;
  }
  // nlohmann's whitespace.
  void space() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) {
      ++at_;
    }
  }
  bool string(std::string_view& out) {
    if (!take('"')) {
      return false;
    }
    const std::size_t begin = at_;
    for (; at_ < text_.size(); ++at_) {
      const auto c = static_cast<unsigned char>(text_[at_]);
      if (c == '"') {
        out = text_.substr(begin, at_ - begin);
        ++at_;
        return true;
      }
      if (c < 0x20 || c > 0x7e || c == '\\') {
        return false;
      }
    }
    return false;
  }
  /// Digits as nlohmann's number_unsigned gives them back through std::to_string: no leading
  /// zero, and at most 19 (every such number fits 64 bits).
  bool number(std::string_view& out) {
    const std::size_t begin = at_;
    while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
      ++at_;
    }
    const std::size_t n = at_ - begin;
    if (n == 0 || n > 19 || (n > 1 && text_[begin] == '0')) {
      return false;
    }
    const char next = peek();
    if (next != ',' && next != '}' && next != ']' && next != ' ' && next != '\t' && next != '\n' && next != '\r') {
      return false;  // a fraction, an exponent or an error: nlohmann's to read
    }
    out = text_.substr(begin, n);
    return true;
  }
  bool word(std::string_view w) {
    if (text_.substr(at_, w.size()) != w) {
      return false;
    }
    at_ += w.size();
    const char next = peek();
    return next == ',' || next == '}' || next == ' ' || next == '\t' || next == '\n' || next == '\r';
  }
  /// A string or a number (what an array may hold).
  bool item(Value::Kind& kind, std::string_view& text) {
    if (peek() == '"') {
      kind = Value::Kind::string;
      return string(text);
    }
    kind = Value::Kind::number;
    return number(text);
  }
  bool value(Value& v) {
    const char c = peek();
    if (c == 't' || c == 'f' || c == 'n') {
      const std::string_view w = c == 't' ? "true" : c == 'f' ? "false" : "null";
      v.kind = c == 'n' ? Value::Kind::null : Value::Kind::boolean;
      v.text = w;
      return word(w);
    }
    if (c == '[') {
      ++at_;
      v.kind = Value::Kind::array;
      space();
      if (take(']')) {
        return true;
      }
      do {
        space();
        Value::Kind kind{};
        std::string_view text;
        if (!item(kind, text)) {
          return false;
        }
        v.items.emplace_back(text);
        space();
      } while (take(','));
      return take(']');
    }
    std::string_view text;
    if (!item(v.kind, text)) {
      return false;
    }
    v.text = text;
    return true;
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

std::string RequestReader::field_name(std::string_view flag) {
  std::string out(flag.substr(flag.starts_with("--") ? 2 : 0));
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

RequestReader::RequestReader(CLI::App& commands, std::vector<std::string> other_commands)
    : other_commands_(std::move(other_commands)) {
  for (CLI::App* sub : commands.get_subcommands([](CLI::App*) { return true; })) {
    Command& c = commands_[sub->get_name()];
    c.app = sub;
    command_names_.push_back(sub->get_name());
    for (CLI::Option* opt : sub->get_options()) {
      for (const std::string& lname : opt->get_lnames()) {
        const std::string field = field_name(lname);
        if (field == "format") {
          c.format = opt;
        }
        if (refused(field)) {
          continue;
        }
        c.fields[field] = RequestField{.flag = "--" + lname,
                                       .name = lname,
                                       .option = opt,
                                       .is_flag = opt->get_expected_max() == 0,
                                       .repeatable = opt->get_items_expected_max() > 1};
        c.names.push_back(field);
      }
    }
  }
}

const RequestReader::Command& RequestReader::command(std::string_view name) const {
  const auto found = commands_.find(std::string(name));
  if (found != commands_.end()) {
    return found->second;
  }
  if (std::find(other_commands_.begin(), other_commands_.end(), name) != other_commands_.end()) {
    throw RequestError{.field = "command",
                       .message = fmt::format("batch answers {} requests; run 'gpuplan {}' on its own",
                                              fmt::join(command_names_, ", "), name)};
  }
  const auto close = closest_names(name, command_names_);
  throw RequestError{.field = "command",
                     .message = fmt::format("unknown command '{}'{}", name,
                                            close.empty() ? fmt::format("; batch answers {}", fmt::join(command_names_, ", "))
                                                          : fmt::format("; closest: {}", fmt::join(close, ", ")))};
}

void RequestReader::read(std::string_view line, Request& request) const {
  request.app = nullptr;
  request.format = nullptr;
  request.arguments.clear();
  std::vector<Member> members;
  members.reserve(16);  // a request has a handful of fields: no reallocation moving them
  if (!SimpleLine(line).read(members)) {
    members.clear();
    FlatObject object;
    Json::sax_parse(line.begin(), line.end(), &object);
    if (object.error) {
      // The handler stops at the first thing it refuses (a nested object); a line that is not
      // JSON at all (truncated, trailing garbage) is said to be that, with the position.
      if (!object.error->message.starts_with("not valid JSON")) {
        SyntaxOnly syntax;
        Json::sax_parse(line.begin(), line.end(), &syntax);
        if (syntax.error) {
          throw RequestError{.field = "", .message = *syntax.error};
        }
      }
      throw *object.error;
    }
    members = std::move(object.members);
  }
  const auto command_member =
      std::find_if(members.begin(), members.end(), [](const Member& m) { return m.key == "command"; });
  if (command_member == members.end()) {
    throw RequestError{.field = "command",
                       .message = fmt::format("missing: name the request, e.g. \"command\": \"fit\" ({})",
                                              fmt::join(command_names_, ", "))};
  }
  if (command_member->value.kind != Value::Kind::string) {
    throw RequestError{.field = "command", .message = fmt::format("expected a string such as \"fit\", got {}",
                                                                  command_member->value.text)};
  }
  const std::string& name = command_member->value.text;
  const Command& c = command(name);
  request.command = name;
  request.app = c.app;
  request.format = c.format;
  const auto add = [&request](const RequestField& f, std::string value) {
    request.arguments.push_back(Request::Argument{.field = &f, .value = std::move(value)});
  };
  for (Member& m : members) {
    if (&m == &*command_member) {
      continue;
    }
    const auto found = c.fields.find(m.key);
    if (found == c.fields.end()) {
      if (const auto why = refused(m.key)) {
        throw RequestError{.field = m.key, .message = std::string(*why)};
      }
      const std::string as_field = field_name(m.key);
      if (as_field != m.key && c.fields.contains(as_field)) {
        throw RequestError{.field = m.key, .message = fmt::format("unknown field; fields spell the flag's '-' as '_': {}", as_field)};
      }
      // A context length on a command timed per request (tasks s56 F5: perf's "context" was
      // pointed at "output" alone): its input and output.
      if (is_context_key(m.key) && c.fields.contains("input") && c.fields.contains("output")) {
        throw RequestError{.field = m.key,
                           .message = fmt::format("unknown field for {}; it takes a request's input and output tokens "
                                                  "(the context is their sum)",
                                                  name)};
      }
      // Scored as the CLI scores flags ("--context" finds "--output"): a bare field is too short
      // for the edit distance to leave any name close.
      std::vector<std::string> dashed;
      for (const std::string& n : c.names) {
        dashed.push_back("--" + n);
      }
      std::vector<std::string> close = closest_names("--" + m.key, dashed);
      for (std::string& n : close) {
        n.erase(0, 2);
      }
      throw RequestError{.field = m.key,
                         .message = fmt::format("unknown field for {}{}", name,
                                                close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", ")))};
    }
    const RequestField& f = found->second;
    Value& v = m.value;
    if (v.kind == Value::Kind::null) {
      throw RequestError{.field = m.key, .message = "null is not a value; leave the field out for the default"};
    }
    if (f.is_flag) {
      if (v.kind != Value::Kind::boolean) {
        throw RequestError{.field = m.key, .message = fmt::format("expected true or false, got {}", v.text.empty() ? "an array" : v.text)};
      }
      if (v.text == "true") {
        add(f, std::string());
      }
      continue;
    }
    if (v.kind == Value::Kind::boolean) {
      throw RequestError{.field = m.key, .message = fmt::format("expected a number or string, got {}", v.text)};
    }
    if (v.kind == Value::Kind::array) {
      if (!f.repeatable) {
        throw RequestError{.field = m.key, .message = "takes one value, got an array"};
      }
      if (v.items.empty()) {
        throw RequestError{.field = m.key, .message = "an empty array; give a value or leave the field out"};
      }
      for (std::string& item : v.items) {
        if (item.empty()) {
          throw RequestError{.field = m.key, .message = std::string(kEmptyValue)};
        }
        check_items(m.key, f, item);
        add(f, std::move(item));
      }
      continue;
    }
    if (v.text.empty()) {
      throw RequestError{.field = m.key, .message = std::string(kEmptyValue)};
    }
    check_items(m.key, f, v.text);
    add(f, std::move(v.text));
  }
  // The command line's limit (check_list_lengths): a line is answered as the command would be.
  std::vector<std::pair<const RequestField*, std::size_t>> counts;  // a handful of fields
  for (const Request::Argument& a : request.arguments) {
    auto it = std::find_if(counts.begin(), counts.end(), [&a](const auto& entry) { return entry.first == a.field; });
    if (it == counts.end()) {
      it = counts.insert(counts.end(), {a.field, 0});
    }
    it->second += list_items(*a.field, a.value);
  }
  for (const auto& [field, values] : counts) {
    if (values > limits::kMaxListItems) {
      throw RequestError{.field = field_name(field->name),
                         .message = fmt::format("at most {} values, got {}", limits::kMaxListItems, values)};
    }
  }
}

std::vector<std::string> RequestReader::command_line(const Request& request) {
  std::vector<std::string> args{request.command, "--format=json"};
  args.reserve(request.arguments.size() + 2);
  for (const Request::Argument& a : request.arguments) {
    // --flag=value: a value starting with '-' stays a value.
    args.push_back(a.field->is_flag ? a.field->flag : a.field->flag + "=" + a.value);
  }
  return args;
}

// Calls `each(at, end, field)` for every "--flag" in `message` that is a field of `command`.
template <typename Each>
void RequestReader::for_each_field(std::string_view command_name, std::string_view message, Each each) const {
  const auto found = commands_.find(std::string(command_name));
  if (found == commands_.end()) {
    return;
  }
  for (const FlagWord& w : flag_words(message)) {
    const std::string field = field_name(message.substr(w.begin, w.end - w.begin));
    if (found->second.fields.contains(field) && !each(w.begin, w.end, field)) {
      return;
    }
  }
}

std::string RequestReader::field_in(std::string_view command_name, std::string_view message) const {
  std::string first;
  for_each_field(command_name, message, [&first](std::size_t, std::size_t, const std::string& field) {
    first = field;
    return false;
  });
  return first;
}

std::string RequestReader::in_field_names(std::string_view command_name, std::string_view message) const {
  std::string out;
  std::size_t copied = 0;
  for_each_field(command_name, message, [&](std::size_t at, std::size_t end, const std::string& field) {
    out.append(message.substr(copied, at - copied)).append(field);
    copied = end;
    return true;
  });
  return out.append(message.substr(copied));
}

}  // namespace gpuplan::cli
