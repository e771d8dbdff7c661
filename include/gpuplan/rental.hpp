#pragma once
// Whole instances (DESIGN "Cost"): a price whose instances come in fixed sizes
// (Price::gpus_per_instance, e.g. AWS's 8-GPU p5en.48xlarge) is paid for whole instances, so a
// deployment of N GPUs pays for the instances that hold it: ceil(N / 8) x 8 GPUs there, the
// smallest size that holds it when there are several, whole instances of the largest beyond.
// A replica that fits one node is timed as one (its TP all-reduces and pipeline hand-offs over
// NVLink or PCIe), so its GPUs share one instance: a TP-2 replica cannot run on two 1-GPU
// g6e.xlarge instances.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpuplan/price.hpp>

namespace gpuplan {

struct GpuSpec;
struct Layout;

/// Instances of one size.
struct InstanceCount {
  std::uint64_t gpus = 0;   ///< GPUs per instance
  std::uint64_t count = 0;
  bool operator==(const InstanceCount&) const = default;
};

/// How a deployment is rented at one price.
struct InstanceRental {
  std::uint64_t gpus = 0;                ///< GPUs the deployment runs on
  std::uint64_t group = 1;               ///< GPUs that must share one instance (a replica, up to a node)
  std::uint64_t rented_gpus = 0;         ///< GPUs paid for; `gpus` when any count is rented
  std::vector<InstanceCount> instances;  ///< largest first; empty when any count is rented
  /// `group` is larger than every instance the price rents. A replica's GPUs exchange
  /// activations every layer over NVLink, which separate instances do not share, so the
  /// deployment as timed is not rentable there: compare, cost and scale refuse to price it;
  /// check and train price it GPU by GPU and call the figure a lower bound.
  bool group_split = false;
  [[nodiscard]] bool whole_instances() const { return !instances.empty(); }
  [[nodiscard]] std::uint64_t idle_gpus() const { return rented_gpus - gpus; }
  [[nodiscard]] std::uint64_t instance_count() const;
};

/// Rents `gpus` GPUs in instances of the `sizes` given (each size in any number; empty: any
/// count, nothing rounded) with every `group` GPUs (a replica) in one instance: the fewest GPUs paid, then
/// the fewest instances. `gpus` >= 1; a `group` that does not divide `gpus` counts as 1.
InstanceRental rent_instances(std::uint64_t gpus, std::span<const std::uint64_t> sizes, std::uint64_t group = 1);

/// The GPUs of a replica that must sit in one instance: the replica (TP x PP; every rank of a
/// DP-attention engine) up to a node, as the performance model places it (stages and TP across
/// nodes run over the network); 1 where the GPU's NVLink domain is larger than a node (GB200
/// NVL72: the domain joins the instances, its trays).
std::uint64_t instance_group(const Layout& layout, const GpuSpec& gpu, std::uint64_t gpus_per_node);

/// What a deployment asks of a price: its GPUs and the group that shares an instance.
struct GpuNeed {
  std::uint64_t gpus = 1;
  std::uint64_t group = 1;
  /// Set: the deployment fills its instances with replicas of this many GPUs (plan does), so
  /// prices compare by USD per replica-hour rather than USD an hour.
  std::uint64_t fill_replica_gpus = 0;
};

/// How a price's age weighs against its cost.
enum class StalePrices {
  /// A current price over a stale one, the newest stale one where none is current: a rate quoted
  /// over 180 days ago is no offer to act on (spot prices move weekly).
  current_first,
  /// Age aside: the cheapest for the deployment (plan --include-stale).
  by_cost,
};

/// Whether `candidate` is the better price for a deployment of `need` (plan, compare, check and
/// cost choose with it): one whose instances hold the group over one that cannot; then, as
/// preferred_price(), a current price over a stale one (the newest stale one) unless `stale` is
/// by_cost; then the fewest USD an hour for whole instances; then the lowest rate per GPU-hour.
[[nodiscard]] bool preferred_for(const Price& candidate, const Price& current, const GpuNeed& need,
                                 StalePrices stale = StalePrices::current_first);

/// The price of `offer` (one offer's instance sizes; not empty) best for `need` (preferred_for).
const Price& best_for(std::span<const Price> offer, const GpuNeed& need);

/// `price` with the instance sizes of every price of its `offer` together ("1, 4 or 8 GPUs"), for
/// notes; none when one of them rents any count.
Price offer_sizes(const Price& price, std::span<const Price> offer);

/// A price's instance sizes as outputs name them: "8 GPUs", "1, 2, 4 or 8 GPUs"; empty when
/// it rents any count.
std::string instance_sizes_text(const Price& price);
/// The instances as outputs name them: "1 x p5en.48xlarge (8 GPUs)", "2 x 8-GPU instances",
/// "1 x 8-GPU + 1 x 4-GPU instance"; the price's instance name is used when it has one size
/// and the name is one word.
std::string instances_label(const InstanceRental& rental, const Price& price);
/// One sentence on what is rented, or empty when the price rents any count: "rents 1 x
/// p5en.48xlarge (8 GPUs): 8 GPUs paid for a 1-GPU deployment, 7 idle"; a replica no instance
/// holds says the figure is a lower bound.
std::string rental_note(const InstanceRental& rental, const Price& price);
/// How a replica's GPUs talk inside one host, which separate instances cannot give them: the
/// GPU's scale-up link (NVLink, xGMI) when its domain holds `group` GPUs, else PCIe peers in one
/// host (L4, L40S); a neutral phrase when the GPU is not known.
std::string replica_link_text(const GpuSpec* gpu, std::uint64_t group);
/// Why a `group_split` rental is not rentable: "a replica needs 4 GPUs in one instance (l4 has no
/// NVLink ...: PCIe peers in one host ...) and the largest aws on-demand instance of l4 the catalog
/// has holds 1 GPU". `sizes` names the largest size: give offer_sizes() to name the offer's
/// largest rather than the chosen price's.
std::string not_rentable_text(const InstanceRental& rental, const Price& sizes, const GpuSpec* gpu = nullptr);

}  // namespace gpuplan
