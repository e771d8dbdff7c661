// gpuplan fit: does a model fit a GPU (or MIG slice, or node) and how much KV cache is left?
#include <memory>

#include <fmt/format.h>

#include <gpuplan/fit_report.hpp>
#include <gpuplan/render_json_lines.hpp>

#include "command_io.hpp"
#include "common.hpp"
#include "deployment.hpp"

namespace gpuplan::cli {
namespace {

struct FitOptions {
  CommonOptions common;
  DeploymentOptions deployment;
  std::uint64_t context = 8192;
  std::uint64_t concurrency = 1;
  bool check = false;
  bool context_given = false;
  bool concurrency_given = false;
};

Exit run_fit(const FitOptions& o) {
  const Catalog& catalog = command_catalog(o.common);
  const RenderOptions render = render_options(o.common);
  if (o.deployment.params_given && (o.context_given || o.concurrency_given)) {
    throw InputError(fmt::format("{}: {}", o.context_given ? "--context" : "--concurrency", kParamsWeightsOnly));
  }
  Deployment d = resolve_deployment(catalog, o.deployment);
  d.request.context_tokens = o.context;
  d.request.concurrency = o.concurrency;
  const FitQuestion question{.request = d.request,
                             .search = {.gpus = d.gpus, .gpus_per_node = d.request.gpus_per_node},
                             .layout_given = d.layout_given,
                             .context_given = o.context_given};
  FitCache* cache = fit_cache_for(d);
  std::optional<std::string> context_error;
  const FitReport report = cache != nullptr ? plan_fit(d.model, *d.gpu, question, *cache, context_error)
                                            : plan_fit(d.model, *d.gpu, question);
  if (context_error) {
    // Handed to the batch as with_flag_names() hands a thrown error (the cache is the batch's).
    return batch_input_error(InputError(std::move(*context_error)));
  }
  print_document(json_lines() ? render_json_line(report) : render_fit(report, render));
  return o.check && !report.search.chosen.fits ? Exit::check_failed : Exit::ok;
}

}  // namespace

void add_fit_command(CLI::App& app, Exit& exit_code) {
  auto o = std::make_shared<FitOptions>();
  CLI::App* sub = app.add_subcommand(
      "fit",
      "Does a model fit, and how much KV cache is left? Without --tp/--pp every layout of the GPUs is tried and the "
      "one holding the most concurrent sequences is shown (the capacity question); perf, cost, compare and plan "
      "files choose the layout with the most output tokens/s instead (the serving question)");
  add_deployment_options(*sub, o->deployment, true);
  CLI::Option* context = sub->add_option("--context", o->context,
                  "Tokens per sequence (prompt + output); 32k = 32768, 128K, 1M (binary: k = 1024, M = 1024^2)")
      ->capture_default_str()
      ->transform(token_count())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32));
  CLI::Option* concurrency = sub->add_option("--concurrency", o->concurrency, "Concurrent sequences over the deployment")
      ->capture_default_str()
      ->transform(whole_number())->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100'000'000}));
  sub->add_flag("--check", o->check, "Exit with code 1 when it does not fit");
  add_common_options(*sub, o->common);
  // The option itself, not sub->count("--context"), which searches every option by name (batch
  // asks for each request).
  set_command_callback(*sub, o, [o, sub, context, concurrency, &exit_code] {
    note_given(*sub, o->deployment);
    o->context_given = context->count() > 0;
    o->concurrency_given = concurrency->count() > 0;
    exit_code = with_flag_names([&o] { return run_fit(*o); });
  });
}

}  // namespace gpuplan::cli
