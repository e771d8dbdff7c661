#pragma once
// A price's age as CSV cells: days and stale apart ("206 d (stale)" is text to a spreadsheet).
// One rule for every CSV table that shows a price's age (cost, compare, plan).

#include <gpuplan/price.hpp>

#include <string>
#include <vector>

namespace gpuplan::detail {

[[nodiscard]] inline std::vector<std::string> price_age_cells(const Price& p) {
  if (p.given()) {
    return {"-", "-"};  // typed by hand: no date
  }
  return {std::to_string(p.age_days), p.stale() ? "yes" : "no"};
}

}  // namespace gpuplan::detail
