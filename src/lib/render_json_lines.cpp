// JSON Lines (`gpuplan batch`): each answer is the command's JSON document on one line.
#include <cstring>

#include <gpuplan/render.hpp>

#include "detail/json_writer.hpp"

namespace gpuplan {

std::string render_json_line(std::string_view json) {
  // The documents are JSON printed with indentation; whitespace outside strings carries no
  // meaning, so dropping it gives the compact form without parsing the document again.
  std::string out;
  out.reserve(json.size());
  const char* p = json.data();
  const char* const end = p + json.size();
  while (p < end) {
    const char c = *p++;
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      continue;
    }
    out += c;
    if (c != '"') {
      continue;
    }
    // Copy the string through its closing quote; an escaped quote does not close it.
    while (p < end) {
      const char* stop = p;
      while (stop < end && *stop != '"' && *stop != '\\') {
        ++stop;
      }
      out.append(p, stop);
      if (stop == end) {
        p = end;
        break;
      }
      if (*stop == '\\') {
        out.append(stop, std::min<std::size_t>(2, static_cast<std::size_t>(end - stop)));
        p = stop + std::min<std::ptrdiff_t>(2, end - stop);
        continue;
      }
      out += '"';
      p = stop + 1;
      break;
    }
  }
  out += '\n';
  return out;
}

std::string render_batch_error(std::uint64_t line, std::string_view field, std::string_view message) {
  // Written directly (the bytes nlohmann's dump(-1) gives): a DOM cost more than a short answer.
  std::string out;
  {
    detail::JsonWriter w(out, -1);
    w.begin_object();
    w.key("error").begin_object();
    w.member("line", line);
    w.key("field");
    if (field.empty()) {
      w.null();
    } else {
      w.value(field);
    }
    w.member("message", message);
    w.end_object();
    w.end_object();
  }
  out += '\n';
  return out;
}

}  // namespace gpuplan
