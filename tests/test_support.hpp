#pragma once
// Helpers many test files share, defined once (the asan and fuzz presets build the suite as a
// unity build, where two files' helpers of the same name would collide).

#include <string>
#include <string_view>

#include <gpuplan/catalog.hpp>
#include <gpuplan/model_spec.hpp>

namespace gpuplan::test {

inline const Catalog& cat() { return Catalog::builtin(); }

inline const ModelSpec& model(std::string_view id) { return Catalog::builtin().model(id); }

inline const GpuSpec& gpu(std::string_view id) { return Catalog::builtin().gpu(id); }

inline ParamCount params(const char* id) { return count_params(Catalog::builtin().model(id)); }

/// A file of tests/fixtures.
inline std::string fixture(const char* name) { return std::string(GPUPLAN_FIXTURES_DIR) + "/" + name; }

}  // namespace gpuplan::test
