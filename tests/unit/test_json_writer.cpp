// JsonWriter must print what nlohmann's dump() prints for the same document (its layout, its
// escaping), but the shortest digits of every number: batch answers and the single commands'
// --format json are compared byte for byte by golden and batch tests.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/fit_report.hpp>
#include <gpuplan/perf.hpp>
#include <gpuplan/render.hpp>
#include <gpuplan/render_json_lines.hpp>

// The writer is internal to the library (src/lib/detail), not an installed header.
#include "../../src/lib/detail/json_writer.hpp"

using gpuplan::detail::JsonWriter;
using Json = nlohmann::ordered_json;

namespace {

/// The same document twice: streamed by JsonWriter, and built as nlohmann's DOM.
void build(JsonWriter& w, Json& j) {
  const std::vector<double> doubles{0.0, -0.0, 1.0, 0.1, 0.915, 1e-7, 1.5e-5, 123456789012345.0, 1e15, 1e16,
                                    1.0 / 3.0, -2.5e300, 4.9e-324, std::numeric_limits<double>::max()};
  w.begin_object();
  w.key("doubles").begin_array();
  Json d = Json::array();
  for (const double x : doubles) {
    w.value(x);
    d.push_back(x);
  }
  w.end_array();
  j["doubles"] = d;
  w.member("u64", std::numeric_limits<std::uint64_t>::max());
  j["u64"] = std::numeric_limits<std::uint64_t>::max();
  w.member("i64", std::numeric_limits<std::int64_t>::min());
  j["i64"] = std::numeric_limits<std::int64_t>::min();
  w.member("int", -3);
  j["int"] = -3;
  w.member("yes", true).member("no", false);
  j["yes"] = true;
  j["no"] = false;
  // Flags and counts below 10 take the inline path; 10 the general one.
  w.key("small").begin_array().value(0U).value(9U).value(std::uint64_t{10}).value(true).value(false).end_array();
  j["small"] = Json::array({0U, 9U, 10U, true, false});
  w.key("nothing").null();
  j["nothing"] = nullptr;
  w.member("unset", std::optional<std::uint64_t>());
  j["unset"] = nullptr;
  w.member("set", std::optional<std::uint64_t>(7));
  j["set"] = 7U;
  w.key("empty_object").begin_object().end_object();
  j["empty_object"] = Json::object();
  w.key("empty_array").begin_array().end_array();
  j["empty_array"] = Json::array();
  const std::vector<std::string> strings{"plain", "quote \" and \\ backslash", "tab\tnew\nline\x01", "caf\xc3\xa9 \xe2\x82\xac",
                                         "bad \xff utf-8", ""};
  w.member("strings", strings);
  j["strings"] = strings;
  w.key("nested \"key\"").begin_array().begin_object().member("a", 1U).end_object().begin_array().end_array();
  w.value("last").end_array();
  j["nested \"key\""] = Json::array({Json{{"a", 1U}}, Json::array(), "last"});
  w.end_object();
}

}  // namespace

TEST_CASE("JsonWriter: nlohmann's bytes, indented and on one line", "[render][json]") {
  for (const int indent : {2, -1}) {
    std::string text;
    JsonWriter w(text, indent);
    Json j;
    build(w, j);
    CHECK(text == j.dump(indent, ' ', false, Json::error_handler_t::replace));
  }
}

TEST_CASE("JsonWriter: a flag or small count alone is a whole document", "[render][json]") {
  for (const bool b : {true, false}) {
    std::string text;
    JsonWriter w(text, -1);
    w.value(b);
    CHECK(text == Json(b).dump());
  }
  std::string text;
  {
    JsonWriter w(text, 2);
    w.value(7U);
  }
  CHECK(text == "7");
}

TEST_CASE("JsonWriter: a byte to escape is found at any place of a string of any length", "[render][json]") {
  // plain() checks whole words, an overlapping last word and overlapping halves: every length
  // from 0 to 20, each byte in turn replaced by one that needs escaping (or that UTF-8 starts).
  for (std::size_t length = 0; length <= 20; ++length) {
    for (const char odd : {'"', '\\', '\n', '\x1f', '\x7f', '\xc3', '~', ' '}) {
      for (std::size_t at = 0; at < std::max<std::size_t>(length, 1); ++at) {
        std::string text(length, 'a');
        if (length > 0) {
          text[at] = odd;
        }
        std::string out;
        JsonWriter w(out, -1);
        w.value(text);
        INFO("length " << length << ", byte " << static_cast<int>(static_cast<unsigned char>(odd)) << " at " << at);
        CHECK(out == Json(text).dump(-1, ' ', false, Json::error_handler_t::replace));
      }
    }
  }
}

TEST_CASE("JsonWriter: NaN and infinities are null, as nlohmann writes them", "[render][json]") {
  std::string text;
  JsonWriter w(text, -1);
  w.begin_array().value(std::nan("")).value(std::numeric_limits<double>::infinity()).end_array();
  CHECK(text == Json::array({std::nan(""), std::numeric_limits<double>::infinity()}).dump());
}

TEST_CASE("JsonWriter: the shortest digits that read back, where nlohmann's Grisu2 gives more", "[render][json]") {
  // Grisu2 writes 4.5061732624074637e+17 and 25184627954801.937 (the nearer of two 17-digit
  // candidates is .938); both spellings read back as the same double.
  for (const auto& [number, expected] : {std::pair(4.5061732624074637e+17, "4.506173262407464e+17"),
                                         std::pair(25184627954801.937, "25184627954801.938"),
                                         std::pair(-1.0 / 3.0, "-0.3333333333333333"), std::pair(5e-5, "5e-05"),
                                         std::pair(2048.0, "2048.0"), std::pair(989e12, "989000000000000.0")}) {
    std::string text;
    JsonWriter w(text, -1);
    w.value(number);
    CHECK(text == expected);
    CHECK(std::bit_cast<std::uint64_t>(Json::parse(text).get<double>()) == std::bit_cast<std::uint64_t>(number));
  }
}

TEST_CASE("fit and perf JSON on one line: the indented document's values, compact", "[render][json][batch]") {
  const auto& c = gpuplan::Catalog::builtin();
  const gpuplan::FitQuestion question{
      .request = gpuplan::FitRequest{.weights_dtype = gpuplan::DType::fp8, .context_tokens = 32768, .concurrency = 64},
      .search = {.gpus = 8, .gpus_per_node = 8}};
  const gpuplan::FitReport report = gpuplan::plan_fit(c.model("llama-3.1-70b"), c.gpu("h200-sxm"), question);
  gpuplan::PerfRequest perf_request;
  perf_request.fit.layout.tp = 2;
  const gpuplan::PerfResult perf = gpuplan::perf(c.model("llama-3.1-70b"), c.gpu("h100-sxm"), perf_request, {1, 64},
                                                 gpuplan::EstimateBand{});
  const gpuplan::RenderOptions pretty{.format = gpuplan::Format::json};
  for (const auto& [indented, line] :
       {std::pair(gpuplan::render_fit(report, pretty), gpuplan::render_json_line(report)),
        std::pair(gpuplan::render_perf(perf, pretty), gpuplan::render_json_line(perf))}) {
    CHECK(line == gpuplan::render_json_line(std::string_view(indented)));
    CHECK(line == Json::parse(indented).dump() + "\n");
    CHECK(indented == Json::parse(indented).dump(2) + "\n");
  }
}
