// Limits on input (gpuplan/input_limits.hpp): hostile sizes fail fast with exit 2 and a short
// message. Before them a 60 MB file with one unknown key took 9 s and printed a 63 MB error
// line, and a 60 MB array took 8 s and 1.5 GB (issue 14). Inputs are generated here, small
// enough to stay quick under ASan, but each one past the limit it tests.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>

using Catch::Matchers::Contains;
using gpuplan::Catalog;
using gpuplan::InputError;
namespace limits = gpuplan::limits;

namespace {

// Every rejection here is one line that quotes at most a short excerpt.
constexpr std::size_t kShortMessage = 300;

std::string message_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("no InputError");
  return "";
}

std::string catalog_with(const std::string& extra) { return R"({"schema_version": 1, )" + extra + "}"; }

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("gpuplan-limits-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("limits: a file over 16 MiB is refused before it is read", "[limits]") {
  TempDir dir;
  const auto big = dir.path / "big.json";
  {
    std::ofstream out(big, std::ios::binary);
    out << R"({"schema_version": 1, "description": ")";
    out.seekp(static_cast<std::streamoff>(limits::kMaxFileBytes) + 10);  // sparse: no 16 MB write
    out << "\"}";
  }
  Catalog c;
  const std::string m = message_of([&] { c.merge_file(big); });
  CHECK_THAT(m, Contains("big.json: catalog file is") && Contains("larger than the limit of 16 MiB"));
  CHECK(m.size() < kShortMessage);
  CHECK_THAT(message_of([&] { (void)gpuplan::model_from_hf_config_file(big); }),
             Contains("larger than the limit of 16 MiB"));
}

TEST_CASE("limits: a stream is cut off as soon as it passes the limit", "[limits]") {
  std::istringstream in(std::string(5000, 'x'));
  CHECK_THROWS_WITH(limits::read_stream(in, "pipe", 4096), "pipe is larger than the limit of 0 MiB");
  std::istringstream small("1,2\n");
  CHECK(limits::read_stream(small, "pipe", 4096) == "1,2\n");
}

TEST_CASE("limits: a huge unknown key is quoted as an excerpt, not whole", "[limits]") {
  // The 60 MB case of the issue, scaled down: the key alone is past the key limit.
  const std::string key(1u << 20, 'k');
  Catalog c;
  const std::string m = message_of([&] { c.merge_text(catalog_with("\"" + key + "\": 1"), "u.json"); });
  CHECK_THAT(m, Contains("u.json: invalid JSON: a key longer than 256 bytes: \"kkkk") &&
                    Contains("(1048576 bytes)"));
  CHECK(m.size() < kShortMessage);
}

TEST_CASE("limits: an unknown key under the key limit still yields a short pointer", "[limits]") {
  const std::string key(limits::kMaxJsonKeyBytes, 'k');
  Catalog c;
  const std::string m =
      message_of([&] { c.merge_text(catalog_with(R"("gpus": [{")" + key + R"(": 1}])"), "u.json"); });
  CHECK_THAT(m, Contains("u.json: /gpus/0/kkk") && Contains("...") && Contains(": unknown field"));
  CHECK(m.size() < kShortMessage);
}

TEST_CASE("limits: a long string value is refused with an excerpt", "[limits]") {
  const std::string text(limits::kMaxJsonStringBytes + 1, 's');
  Catalog c;
  const std::string m = message_of([&] { c.merge_text(catalog_with("\"description\": \"" + text + "\""), "u.json"); });
  CHECK_THAT(m, Contains("u.json: invalid JSON: a string longer than 64 KiB: \"ssss"));
  CHECK(m.size() < kShortMessage);
  // At the limit it is a string like any other.
  CHECK_NOTHROW(Catalog().merge_text(
      catalog_with("\"description\": \"" + std::string(limits::kMaxJsonStringBytes, 's') + "\""), "u.json"));
}

TEST_CASE("limits: the number of values kept is capped, arrays and objects alike", "[limits]") {
  std::string zeros;
  for (std::size_t i = 0; i <= limits::kMaxJsonValues; ++i) {
    zeros += i == 0 ? "0" : ",0";
  }
  Catalog c;
  CHECK_THROWS_WITH(c.merge_text(catalog_with("\"gpus\": [" + zeros + "]"), "u.json"),
                    "u.json: invalid JSON: more than 200000 values");
  // Nested arrays count every level: 70,000 x [[0]] is 210,000 values in a 560 kB file.
  std::string nested;
  for (int i = 0; i < 70'000; ++i) {
    nested += i == 0 ? "[[0]]" : ",[[0]]";
  }
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config("{\"layer_types\": [" + nested + "]}", "config.json"),
                    "config.json: invalid JSON: more than 200000 values");
}

TEST_CASE("limits: the safetensors weight map is skipped, only the metadata kept", "[limits]") {
  // A weight map holding what the limits would refuse anywhere else: it is not kept, so it
  // costs parse time only, and the total size is still read.
  TempDir dir;
  std::filesystem::copy_file(std::filesystem::path(GPUPLAN_FIXTURES_DIR) / "hf-dir-llama-2-7b" / "config.json",
                             dir.path / "config.json");
  std::string map;
  for (int i = 0; i < 1000; ++i) {
    map += "\"model.layers." + std::to_string(i) + ".weight\": \"model-00001-of-00002.safetensors\", ";
  }
  map += "\"long\": \"" + std::string(limits::kMaxJsonStringBytes + 1, 'x') + "\"";
  write(dir.path / "model.safetensors.index.json",
        R"({"metadata": {"total_size": 13476839424}, "weight_map": {)" + map + "}}");
  const gpuplan::ModelSpec m = gpuplan::model_from_hf_config_file(dir.path);
  CHECK(m.checkpoint_bytes == 13476839424.0);
  // The metadata itself is still checked.
  write(dir.path / "model.safetensors.index.json", R"({"weight_map": {}, "metadata": {"total_size": -1}})");
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(dir.path), Contains("/metadata/total_size"));
}

TEST_CASE("limits: excerpts are short and one line", "[limits]") {
  CHECK(limits::excerpt("abc") == "abc");
  CHECK(limits::excerpt("a\nb\tc") == "a?b?c");
  const std::string long_text(1000, 'y');
  CHECK(limits::excerpt(long_text) == std::string(limits::kMaxQuotedChars, 'y') + "... (1000 bytes)");
}

// A sidecar beside config.json that exists but is no file was read as absent: the GPTQ int4
// checkpoint of tests/fixtures/hf-dir-gptq-sidecar sized in bf16, 2.9x its bytes (helper s49 W3).
TEST_CASE("limits: a sidecar that is no regular file is refused by name", "[limits]") {
  TempDir dir;
  const std::filesystem::path fixture = std::filesystem::path(GPUPLAN_FIXTURES_DIR) / "hf-dir-gptq-sidecar";
  std::filesystem::copy_file(fixture / "config.json", dir.path / "config.json");
  const auto sidecar = dir.path / "quantize_config.json";
  CHECK_FALSE(limits::optional_file_present(sidecar, "GPTQ quantization config"));
  std::filesystem::copy_file(fixture / "quantize_config.json", sidecar);
  CHECK(limits::optional_file_present(sidecar, "GPTQ quantization config"));
  const gpuplan::ModelSpec gptq = gpuplan::model_from_hf_config_file(dir.path);
  REQUIRE(gptq.shipped_formats);  // the sidecar's format was read
  CHECK((*gptq.shipped_formats)[gpuplan::WeightPart::dense_mlp].element == gpuplan::DType::int4);
  std::filesystem::remove(sidecar);

  SECTION("a dangling symbolic link: what cp -a of a Hugging Face snapshot leaves") {
    std::filesystem::create_symlink("../../blobs/abc123", sidecar);
    const std::string m = message_of([&] { (void)gpuplan::model_from_hf_config_file(dir.path); });
    CHECK_THAT(m, Contains("quantize_config.json: AWQ/GPTQ quantization config is a dangling symbolic link") &&
                      Contains("../../blobs/abc123"));
  }
  SECTION("a directory") {
    std::filesystem::create_directory(sidecar);
    CHECK_THAT(message_of([&] { (void)gpuplan::model_from_hf_config_file(dir.path); }),
               Contains("quantize_config.json: AWQ/GPTQ quantization config is a directory"));
  }
  SECTION("a symbolic link loop") {
    std::filesystem::create_symlink("quantize_config.json", sidecar);
    CHECK_THAT(message_of([&] { (void)gpuplan::model_from_hf_config_file(dir.path); }),
               Contains("quantize_config.json: AWQ/GPTQ quantization config is a symbolic link that cannot be followed"));
  }
  SECTION("hf_quant_config.json and the safetensors index likewise") {
    std::filesystem::create_directory(dir.path / "hf_quant_config.json");
    CHECK_THAT(message_of([&] { (void)gpuplan::model_from_hf_config_file(dir.path); }),
               Contains("hf_quant_config.json: ModelOpt quantization config is a directory"));
    std::filesystem::remove(dir.path / "hf_quant_config.json");
    std::filesystem::create_symlink("nowhere.json", dir.path / "model.safetensors.index.json");
    CHECK_THAT(message_of([&] { (void)gpuplan::model_from_hf_config_file(dir.path); }),
               Contains("model.safetensors.index.json: safetensors index is a dangling symbolic link"));
  }
}

// batch FILE and scale --measured-file read a stream: /dev/zero never ended and a named FIFO
// waited for a writer forever (helper s48, s49 W6).
TEST_CASE("limits: a stream input that would never end is refused", "[limits]") {
  TempDir dir;
  write(dir.path / "points.json", "{}");
  CHECK_NOTHROW(limits::check_stream_input(dir.path / "points.json", "--measured-file"));
  CHECK_NOTHROW(limits::check_stream_input(dir.path / "missing.json", "--measured-file"));  // the open says why
  CHECK_THAT(message_of([&] { limits::check_stream_input(dir.path, "--measured-file"); }),
             Contains("--measured-file: '") && Contains("is a directory"));
  if (std::filesystem::exists("/dev/zero")) {
    CHECK_THAT(message_of([&] { limits::check_stream_input("/dev/zero", "batch FILE"); }),
               Contains("batch FILE: '/dev/zero' is a device"));
  }
}

// nlohmann's lexer ends the input at a NUL byte: what followed was ignored (helper s48).
TEST_CASE("limits: a NUL byte in JSON is refused with its offset", "[limits]") {
  Catalog c;
  const std::string text = catalog_with(R"("gpus": [])") + std::string(1, '\0') + "garbage";
  CHECK_THAT(message_of([&] { c.merge_text(text, "nul.json"); }),
             Contains("nul.json: invalid JSON: a NUL byte at offset"));
}
