// Build-time generator: splits the array `KEY` of one data/<kind>.json into entries (id, aliases,
// the entry's own JSON) so a command that needs one GPU or model parses only that entry.
//   gpuplan_embed_entries <in.json> <key> <out.cpp> <symbol>
// Validation stays in the library: each entry text goes through the same reader as the file, and
// the catalog tests check that every entry parses to what the whole file gives.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

constexpr const char* kDelimiter = "gpuplan_entry";

// A C++ string literal for a short, plain value (ids and aliases are checked ASCII by the reader).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: gpuplan_embed_entries <in.json> <key> <out.cpp> <symbol>\n";
    return 2;
  }
  const std::string in_path = argv[1];
  const std::string key = argv[2];
  const std::string out_path = argv[3];
  const std::string symbol = argv[4];
  std::ifstream in(in_path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    std::cerr << in_path << ": " << e.what() << "\n";
    return 1;
  }
  const auto arr = root.find(key);
  if (arr == root.end() || !arr->is_array()) {
    std::cerr << in_path << ": no array '" << key << "'\n";
    return 1;
  }
  std::ostringstream aliases;
  std::ostringstream entries;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const nlohmann::json& e = (*arr)[i];
    // Entries without a string id are left to the reader to reject, via the whole-file path.
    const std::string id = e.is_object() && e.contains("id") && e["id"].is_string() ? e["id"].get<std::string>() : "";
    std::string alias_list;
    if (e.is_object() && e.contains("aliases") && e["aliases"].is_array()) {
      for (const auto& a : e["aliases"]) {
        if (a.is_string()) {
          alias_list += (alias_list.empty() ? "" : ", ") + quoted(a.get<std::string>());
        }
      }
    }
    std::string alias_span = "{}";
    if (!alias_list.empty()) {
      alias_span = "kAliases" + std::to_string(i);
      aliases << "constexpr std::string_view " << alias_span << "[] = {" << alias_list << "};\n";
    }
    const std::string json = e.dump();
    if (json.find(std::string(")") + kDelimiter + "\"") != std::string::npos) {
      std::cerr << in_path << ": entry " << i << " contains the raw-string delimiter\n";
      return 1;
    }
    entries << "    {" << quoted(id) << ", " << alias_span << ", " << i << ",\n     R\"" << kDelimiter << "(" << json
            << ")" << kDelimiter << "\"},\n";
  }
  std::ofstream out(out_path, std::ios::binary);
  const std::string name = in_path.substr(in_path.find_last_of('/') + 1);
  out << "// Generated from data/" << name << " by tools/embed_entries.cpp; do not edit.\n"
      << "#include \"detail/embedded_entries.hpp\"\n"
      << "namespace gpuplan::detail {\n"
      << "namespace {\n"
      << aliases.str() << "constexpr EmbeddedEntry kEntries[] = {\n"
      << entries.str() << "};\n"
      << "}  // namespace\n"
      << "extern const std::span<const EmbeddedEntry> " << symbol << ";\n"
      << "const std::span<const EmbeddedEntry> " << symbol << "{kEntries};\n"
      << "}  // namespace gpuplan::detail\n";
  return out ? 0 : 1;
}
