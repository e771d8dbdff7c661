#pragma once
// The plan report's content, format-neutral: the markdown and HTML reports print the same
// tables and lines (HTML adds charts), so neither can say something the other does not.

#include <optional>
#include <string>
#include <vector>

#include <gpuplan/plan_check.hpp>
#include <gpuplan/plan_diff.hpp>
#include <gpuplan/render.hpp>

#include "detail/document.hpp"

namespace gpuplan::detail {

struct DeploymentReport {
  const DeploymentResult* deployment = nullptr;
  std::string summary;               ///< "model on 2 x h100-sxm, TP 2 PP 1 DP 1; 32 concurrent ..."
  Table memory;
  std::optional<Table> performance;  ///< unset when not even one sequence fits
  std::optional<Table> cost;         ///< unset without prices
  std::vector<std::string> footer;   ///< "name: decode is memory-bound ...", then the notes
};

struct PlanReport {
  std::string title;        ///< "gpuplan report: plans/x.json"
  std::string description;  ///< the plan's, may be empty
  std::string verdict;      ///< "PASS: 3 of 3 expectations hold over 2 deployments"
  Table expectations;
  std::vector<DeploymentReport> deployments;
  std::string provenance;   ///< "gpuplan 0.1.0, catalog fnv1a64:..., newest price ..., plan ..."
};

PlanReport plan_report(const CheckResult& result, ByteUnits units);

/// USD per million tokens as the report's tables and charts show it ("0.1234").
std::string usd_per_mtok_text(double usd);

/// What changed since a baseline as a document; `markdown` adds markdown heading marks.
Document diff_document(const PlanDiff& diff, bool markdown);

}  // namespace gpuplan::detail
