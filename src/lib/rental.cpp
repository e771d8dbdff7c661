#include <gpuplan/rental.hpp>

#include <algorithm>
#include <limits>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include <gpuplan/gpu.hpp>
#include <gpuplan/layout.hpp>

namespace gpuplan {
namespace {

/// USD an hour for `need` at `price` (whole instances), or per replica-hour when the deployment
/// fills its instances with replicas.
double paid_usd_per_hour(const Price& price, const InstanceRental& rental, const GpuNeed& need) {
  const double usd = price.usd_per_gpu_hour * static_cast<double>(rental.rented_gpus);
  if (need.fill_replica_gpus == 0) {
    return usd;
  }
  return usd / static_cast<double>(std::max<std::uint64_t>(1, rental.rented_gpus / need.fill_replica_gpus));
}

/// The instance's name when the price has one size and the name is one word ("p5en.48xlarge"
/// from "p5en.48xlarge (EC2 Capacity Block)"); empty otherwise.
std::string instance_name(const Price& price) {
  if (price.gpus_per_instance.size() != 1) {
    return {};
  }
  const std::string name = price.instance.substr(0, price.instance.find(" ("));
  return name.find_first_of(" ,") == std::string::npos ? name : std::string();
}

}  // namespace

std::uint64_t InstanceRental::instance_count() const {
  std::uint64_t n = 0;
  for (const InstanceCount& i : instances) {
    n += i.count;
  }
  return n;
}

InstanceRental rent_instances(std::uint64_t gpus, std::span<const std::uint64_t> sizes, std::uint64_t group) {
  InstanceRental r;
  r.gpus = gpus;
  r.rented_gpus = gpus;
  r.group = group == 0 || gpus % group != 0 ? 1 : group;
  if (sizes.empty() || gpus == 0) {
    return r;
  }
  std::vector<std::uint64_t> fit;
  for (std::uint64_t s : sizes) {
    if (s >= r.group && s > 0) {
      fit.push_back(s);
    }
  }
  std::uint64_t g = r.group;
  if (fit.empty()) {
    // The group cannot sit in one instance: priced GPU by GPU, and said so.
    r.group_split = true;
    g = 1;
    for (std::uint64_t s : sizes) {
      if (s > 0) {
        fit.push_back(s);
      }
    }
  }
  // Counted in units of `group` GPUs: an instance of s GPUs holds s / g of them. The bulk is
  // the size with the fewest GPUs per unit held (the largest on a tie); the last few units,
  // with one bulk instance's worth, are packed exactly (a 4-GPU and a 2-GPU instance may hold
  // them for less than another 8-GPU one).
  std::uint64_t bulk = fit.front();
  for (std::uint64_t s : fit) {
    const std::uint64_t lhs = s * (bulk / g);
    const std::uint64_t rhs = bulk * (s / g);
    if (lhs < rhs || (lhs == rhs && s > bulk)) {
      bulk = s;
    }
  }
  const std::uint64_t units = gpus / g;
  const std::uint64_t per_bulk = bulk / g;
  std::uint64_t full = units / per_bulk;
  std::uint64_t rest = units % per_bulk;
  if (full > 0 && rest > 0) {
    --full;
    rest += per_bulk;
  }
  constexpr auto kNone = std::numeric_limits<std::uint64_t>::max();
  std::vector<std::pair<std::uint64_t, std::uint64_t>> best(rest + 1, {kNone, kNone});  // (GPUs, instances)
  std::vector<std::uint64_t> choice(rest + 1, 0);
  best[0] = {0, 0};
  for (std::uint64_t u = 1; u <= rest; ++u) {
    for (std::uint64_t s : fit) {
      const std::uint64_t held = s / g;
      const auto& prev = best[u > held ? u - held : 0];
      const std::pair<std::uint64_t, std::uint64_t> candidate{prev.first + s, prev.second + 1};
      if (candidate < best[u]) {
        best[u] = candidate;
        choice[u] = s;
      }
    }
  }
  std::vector<std::uint64_t> counts(fit.size(), 0);
  const auto count_of = [&](std::uint64_t s) -> std::uint64_t& {
    return counts[static_cast<std::size_t>(std::find(fit.begin(), fit.end(), s) - fit.begin())];
  };
  count_of(bulk) += full;
  for (std::uint64_t u = rest; u > 0;) {
    const std::uint64_t s = choice[u];
    ++count_of(s);
    u = u > s / g ? u - s / g : 0;
  }
  r.rented_gpus = 0;
  for (std::size_t i = 0; i < fit.size(); ++i) {
    if (counts[i] > 0) {
      r.instances.push_back(InstanceCount{.gpus = fit[i], .count = counts[i]});
      r.rented_gpus += fit[i] * counts[i];
    }
  }
  std::sort(r.instances.begin(), r.instances.end(),
            [](const InstanceCount& a, const InstanceCount& b) { return a.gpus > b.gpus; });
  return r;
}

std::uint64_t instance_group(const Layout& layout, const GpuSpec& gpu, std::uint64_t gpus_per_node) {
  const std::uint64_t node = std::max<std::uint64_t>(1, gpus_per_node);
  if (gpu.scale_up && static_cast<std::uint64_t>(gpu.scale_up->domain_gpus) > node) {
    return 1;
  }
  // A DP-attention engine's ranks exchange tokens every MoE layer: all of them are the group. Else
  // the TP group shares every layer's all-reduce; pipeline stages pass activations point to point,
  // which runs between instances (vLLM and SGLang place stages across nodes).
  const std::uint64_t replica = layout.dp_attention() ? layout.gpus() : layout.tp;
  return std::clamp<std::uint64_t>(replica, 1, node);
}

bool preferred_for(const Price& candidate, const Price& current, const GpuNeed& need, StalePrices stale) {
  const InstanceRental a = rent_instances(need.gpus, candidate.gpus_per_instance, need.group);
  const InstanceRental b = rent_instances(need.gpus, current.gpus_per_instance, need.group);
  if (a.group_split != b.group_split) {
    return !a.group_split;
  }
  const bool by_age = stale == StalePrices::current_first;
  if (by_age && candidate.stale() != current.stale()) {
    return !candidate.stale();
  }
  if (by_age && candidate.stale() && candidate.age_days != current.age_days) {
    return candidate.age_days < current.age_days;
  }
  const double paid_a = paid_usd_per_hour(candidate, a, need);
  const double paid_b = paid_usd_per_hour(current, b, need);
  if (paid_a < paid_b || paid_b < paid_a) {
    return paid_a < paid_b;
  }
  return candidate.usd_per_gpu_hour < current.usd_per_gpu_hour;
}

const Price& best_for(std::span<const Price> offer, const GpuNeed& need) {
  const Price* best = &offer.front();
  for (const Price& p : offer) {
    if (preferred_for(p, *best, need)) {
      best = &p;
    }
  }
  return *best;
}

Price offer_sizes(const Price& price, std::span<const Price> offer) {
  Price sizes = price;
  std::vector<std::uint64_t>& all = sizes.gpus_per_instance;
  for (const Price& p : offer) {
    if (p.gpus_per_instance.empty()) {
      all.clear();
      return sizes;
    }
    all.insert(all.end(), p.gpus_per_instance.begin(), p.gpus_per_instance.end());
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return sizes;
}

std::string instance_sizes_text(const Price& price) {
  const std::vector<std::uint64_t>& sizes = price.gpus_per_instance;
  std::string out;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    out += fmt::format("{}{}", i == 0 ? "" : i + 1 == sizes.size() ? " or " : ", ", sizes[i]);
  }
  return out.empty() ? out : out + (sizes.size() == 1 && sizes.front() == 1 ? " GPU" : " GPUs");
}

std::string instances_label(const InstanceRental& rental, const Price& price) {
  const std::string name = instance_name(price);
  if (!name.empty() && rental.instances.size() == 1) {
    const InstanceCount& i = rental.instances.front();
    return fmt::format("{} x {} ({} GPU{}{})", i.count, name, i.gpus, i.gpus > 1 ? "s" : "", i.count > 1 ? " each" : "");
  }
  std::string out;
  for (const InstanceCount& i : rental.instances) {
    out += fmt::format("{}{} x {}-GPU", out.empty() ? "" : " + ", i.count, i.gpus);
  }
  return out + (rental.instance_count() > 1 ? " instances" : " instance");
}

std::string rental_note(const InstanceRental& rental, const Price& price) {
  if (!rental.whole_instances()) {
    return {};
  }
  if (rental.group_split) {
    return fmt::format("{}: not rentable as timed; priced as {}, a lower bound (the catalog has no price for an "
                       "instance that holds the replica)",
                       not_rentable_text(rental, price), instances_label(rental, price));
  }
  if (rental.idle_gpus() > 0) {
    return fmt::format("rents {}: {} GPUs paid for a {}-GPU deployment, {} idle", instances_label(rental, price),
                       rental.rented_gpus, rental.gpus, rental.idle_gpus());
  }
  return fmt::format("rents {}: {} GPU{}", instances_label(rental, price), rental.rented_gpus,
                     rental.rented_gpus == 1 ? "" : "s");
}

std::string replica_link_text(const GpuSpec* gpu, std::uint64_t group) {
  if (gpu == nullptr) {
    return "its GPUs exchange activations every layer inside one host; separate instances meet only over the network";
  }
  // A domain smaller than the group (an NVLink bridge joins pairs) leaves the rest on PCIe.
  if (gpu->scale_up && static_cast<std::uint64_t>(gpu->scale_up->domain_gpus) >= group) {
    const std::string& kind = gpu->scale_up->kind;
    const std::string_view link = kind.starts_with("nvlink-bridge") ? "an NVLink bridge"
                                  : kind.starts_with("nvlink")      ? "NVLink"
                                  : kind.starts_with("xgmi")        ? "Infinity Fabric (xGMI)"
                                                                    : "the server's scale-up links";
    return fmt::format("its GPUs exchange activations every layer over {}, which separate instances do not share", link);
  }
  return fmt::format("{} has no {}link between its GPUs: they exchange activations every layer as PCIe peers in one "
                     "host; separate instances meet only over the network",
                     gpu->id, gpu->scale_up ? "wide enough " : "NVLink or other scale-up ");
}

std::string not_rentable_text(const InstanceRental& rental, const Price& sizes, const GpuSpec* gpu) {
  // The split replica's GPUs would talk over the network, not their link: no such deployment exists.
  const std::uint64_t largest = sizes.gpus_per_instance.empty() ? 0 : sizes.gpus_per_instance.back();
  return fmt::format("a replica needs {} GPUs in one instance ({}) and the largest {} {} instance of {} the catalog "
                     "has holds {}",
                     rental.group, replica_link_text(gpu, rental.group), sizes.provider,
                     offer_label(sizes.mode, sizes.term), sizes.gpu,
                     instance_sizes_text(Price{.gpus_per_instance = {largest}}));
}

}  // namespace gpuplan
