#pragma once
// A Pareto frontier of two figures that are both better when larger (throughput per GPU and
// tokens/s per user): the points no other point beats in both. Kept incrementally, so a search
// over millions of points holds only the frontier.

#include <algorithm>
#include <iterator>
#include <vector>

namespace gpuplan {

/// `a` dominates `b`: at least as good in both figures and better in one.
template <typename P>
[[nodiscard]] bool dominates(const P& a, const P& b) {
  return a.tokens_per_s_per_gpu >= b.tokens_per_s_per_gpu && a.tokens_per_s_per_user >= b.tokens_per_s_per_user &&
         (a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu || a.tokens_per_s_per_user > b.tokens_per_s_per_user);
}

/// Whether a point with these figures would join `frontier`: no point there dominates or equals
/// it. Lets a search build the point (its strings) only when it joins.
template <typename P>
[[nodiscard]] bool pareto_admits(const std::vector<P>& frontier, double tokens_per_s_per_gpu,
                                 double tokens_per_s_per_user) {
  // The points with at least this many tokens/s per user; the last of them has the most throughput.
  const auto above = std::partition_point(frontier.begin(), frontier.end(), [&](const P& q) {
    return q.tokens_per_s_per_user >= tokens_per_s_per_user;
  });
  return above == frontier.begin() || std::prev(above)->tokens_per_s_per_gpu < tokens_per_s_per_gpu;
}

/// Adds `p` to `frontier` (non-dominated, most tokens/s per user first, hence least throughput
/// per GPU first) unless a point there dominates or equals it; drops the points `p` dominates.
/// Logarithmic search, so a search can offer it every point it evaluates. Returns whether `p` was added.
template <typename P>
bool pareto_insert(std::vector<P>& frontier, const P& p) {
  if (!pareto_admits(frontier, p.tokens_per_s_per_gpu, p.tokens_per_s_per_user)) {
    return false;
  }
  // p dominates the run of points with no more tokens/s per user and no more throughput.
  const auto first = std::partition_point(frontier.begin(), frontier.end(), [&p](const P& q) {
    return q.tokens_per_s_per_user > p.tokens_per_s_per_user;
  });
  const auto last = std::partition_point(first, frontier.end(), [&p](const P& q) {
    return q.tokens_per_s_per_gpu <= p.tokens_per_s_per_gpu;
  });
  frontier.insert(frontier.erase(first, last), p);
  return true;
}

/// True when no point of `points` dominates another (what a test checks a frontier for).
template <typename P>
[[nodiscard]] bool non_dominated(const std::vector<P>& points) {
  for (const P& a : points) {
    for (const P& b : points) {
      if (dominates(a, b)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace gpuplan
