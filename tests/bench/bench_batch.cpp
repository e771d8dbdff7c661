// Throughput of `gpuplan batch` (the issue's goal: >= 100,000 fit or perf requests per second
// on one core, JSON parsing and output included). Runs the built binary on a generated JSON Lines
// file, output to /dev/null, and times the whole process, start-up included.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <gpuplan/catalog.hpp>

extern char** environ;

namespace {

/// `count` requests over the catalog's models and GPUs (every id used as written there).
std::filesystem::path write_requests(std::string_view command, std::int64_t count) {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  const std::vector<std::string> gpus{"h100-sxm", "h200-sxm", "a100-sxm-80gb", "l40s", "b200", "mi300x"};
  const auto path = std::filesystem::temp_directory_path() /
                    fmt::format("gpuplan-bench-{}-{}-{}.jsonl", command, count, ::getpid());
  std::ofstream out(path);
  const auto& models = catalog.models();
  static constexpr const char* kContexts[] = {"4k", "8k", "32k", "128k"};
  for (std::int64_t i = 0; i < count; ++i) {
    const auto& model = models[static_cast<std::size_t>(i) % models.size()];
    const auto& gpu = gpus[static_cast<std::size_t>(i / 7) % gpus.size()];
    if (command == "fit") {
      out << fmt::format(R"({{"command": "fit", "model": "{}", "gpu": "{}", "gpus": 8, "context": "{}"}})", model.id,
                         gpu, kContexts[i % 4])
          << '\n';
    } else {
      out << fmt::format(R"({{"command": "perf", "model": "{}", "gpu": "{}", "gpus": 8, "input": {}, "output": 256}})",
                         model.id, gpu, 512 << (i % 4))
          << '\n';
    }
  }
  return path;
}

/// Runs `gpuplan batch path` with stdout and stderr to /dev/null; false when it fails.
bool run_batch(const std::filesystem::path& path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::string exe = GPUPLAN_EXE;
  std::string batch = "batch";
  std::string file = path.string();
  std::vector<char*> argv{exe.data(), batch.data(), file.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  return spawned == 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void batch_throughput(benchmark::State& state, std::string_view command) {
  const std::int64_t count = state.range(0);
  const auto path = write_requests(command, count);
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    if (!run_batch(path)) {
      state.SkipWithError("gpuplan batch failed");
      break;
    }
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  state.SetItemsProcessed(state.iterations() * count);
  std::filesystem::remove(path);
}

void BM_BatchFit(benchmark::State& state) { batch_throughput(state, "fit"); }
void BM_BatchPerf(benchmark::State& state) { batch_throughput(state, "perf"); }
BENCHMARK(BM_BatchFit)->Arg(100)->Arg(100000)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BatchPerf)->Arg(100)->Arg(100000)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
