#include "detail/load_json.hpp"

#include <string>

namespace gpuplan::detail {

void write_load(JsonWriter& w, const PlannedLoad& load, bool runs) {
  const auto count = [&w](JsonKey name, std::uint64_t n) {
    w.key(name);
    n > 0 ? w.value(n) : w.null();
  };
  w.begin_object();
  w.member("concurrency", load.concurrency);
  w.member("target_output_tokens_per_s", load.target_output_tokens_per_s);
  count("sized_replicas", load.sized_replicas);
  count("replicas_for_target", load.replicas_for_target);
  w.member("full_load", runs && load.full_load());
  w.key("batch_per_replica");
  runs ? w.value(load.batch) : w.null();
  w.member("capped", load.capped);
  w.end_object();
}

nlohmann::ordered_json load_json(const PlannedLoad& load, bool runs) {
  std::string text;
  JsonWriter w(text, -1);
  write_load(w, load, runs);
  return nlohmann::ordered_json::parse(text);
}

}  // namespace gpuplan::detail
