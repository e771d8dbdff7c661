#pragma once
// Published throughput measurements as the project's reference file keeps them
// (shared/reference/calibration.json): names as the source wrote them, parallelism as text.
//
//   {"measured": [{"kind": "throughput", "engine": "TensorRT-LLM (trtllm-bench, ...)",
//                  "model": "Llama-3.3-70B", "gpu": "H200", "parallelism": "TP2,PP4",
//                  "num_gpus": 8, "precision": "FP8", "isl": 128, "osl": 2048,
//                  "concurrency": "max load (all requests queued)" or a number,
//                  "output_tokens_per_s": 4336.0, "source": "..."}, ...],
//    "mlperf": [...], "note": "..."}
//
// `gpuplan validate --benchmarks` reads such a file as it stands, so measurements from
// elsewhere are checked without rewriting them into the catalog's benchmark format.

#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/benchmark.hpp>
#include <gpuplan/catalog.hpp>

namespace gpuplan {

struct MeasurementFile {
  /// The throughput rows, with catalog ids, layouts and formats; all marked `calibrate` (they
  /// are measurements to fit with --calibrate, and `validate` alone only checks them).
  std::vector<Benchmark> benchmarks;
  /// Names read as catalog ids, assumptions made (KV-cache format, EP) and rows not read.
  std::vector<std::string> notes;
};

/// Whether parsed JSON `text` is in this format (a top-level object with a "measured" array).
[[nodiscard]] bool is_measurement_file(std::string_view text);

/// Reads the file's throughput rows. Other kinds (matmul and NCCL figures) and MLPerf rows are
/// skipped with a note. A row with an unknown model or GPU, a parallelism or precision that
/// cannot be read, or a missing or non-positive figure throws InputError naming the file and the
/// JSON pointer (closest catalog names for unknown ones).
[[nodiscard]] MeasurementFile read_measurement_file(const Catalog& catalog, std::string_view text,
                                                    std::string_view origin);

}  // namespace gpuplan
