#include "batch_request.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <gpuplan/catalog.hpp>

namespace gpuplan::cli {
namespace {

using Json = nlohmann::json;

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
    // "[json.exception.parse_error.101] parse error at line 1, column 9: ..." without the tag.
    std::string_view what = e.what();
    if (const auto tag = what.find("] "); tag != std::string_view::npos) {
      what.remove_prefix(tag + 2);
    }
    // The JSON is one line: "at line 1, column 9" is "at column 9".
    std::string text(what);
    if (const auto at = text.find("at line 1, column"); at != std::string::npos) {
      text.replace(at, std::string_view("at line 1, column").size(), "at column");
    }
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
  FlatObject object;
  Json::sax_parse(line.begin(), line.end(), &object);
  if (object.error) {
    throw *object.error;
  }
  const auto command_member =
      std::find_if(object.members.begin(), object.members.end(), [](const Member& m) { return m.key == "command"; });
  if (command_member == object.members.end()) {
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
  for (Member& m : object.members) {
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
      const auto close = closest_names(m.key, c.names);
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
        add(f, std::move(item));
      }
      continue;
    }
    add(f, std::move(v.text));
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

std::string RequestReader::field_in(std::string_view command_name, std::string_view message) const {
  const auto found = commands_.find(std::string(command_name));
  if (found == commands_.end()) {
    return {};
  }
  for (std::size_t at = message.find("--"); at != std::string_view::npos; at = message.find("--", at + 2)) {
    std::size_t end = at + 2;
    while (end < message.size() && (std::islower(static_cast<unsigned char>(message[end])) != 0 ||
                                    std::isdigit(static_cast<unsigned char>(message[end])) != 0 || message[end] == '-')) {
      ++end;
    }
    const std::string field = field_name(message.substr(at, end - at));
    if (found->second.fields.contains(field)) {
      return field;
    }
  }
  return {};
}

}  // namespace gpuplan::cli
