#pragma once
// The mean wait of a request for a free batch slot, when more requests are in flight than a
// replica's batch holds: a benchmark's mean TTFT counts it (vLLM's bench serve and SGLang's
// bench_serving time TTFT from the request's send, not from its admission), the per-batch TTFT
// does not.

#include <cstdint>

namespace gpuplan {

/// Closed loop: `clients` per replica each send their next request when the last one ends, and
/// the replica runs `batch` of them at a time, completing `requests_per_s` (its output tok/s /
/// output tokens). By Little's law a request spends clients / requests_per_s in the system, of
/// which batch / requests_per_s being served: the mean wait is (clients - batch) /
/// requests_per_s. 0 when clients <= batch.
[[nodiscard]] double closed_loop_wait_s(std::uint64_t clients, std::uint64_t batch, double requests_per_s);

/// The mean TTFT from the send, in a closed loop of `clients` per replica over `requests` per replica
/// (0: a count not known). Where clients exceed the batch, the steady state: the wait for a slot
/// (closed_loop_wait_s), then admitted alone to the running batch (`admitted_alone_s`: its prefill
/// beside the batch's decodes). Otherwise, with equal output lengths (`waves`) the clients finish
/// together and send together: every wave takes the batch's burst TTFT `burst_ttft_s`. With lengths
/// that spread, only the first `clients` arrive together and take the burst; each later request is
/// sent as one ends and admitted alone (with one client, to an idle replica: the burst of one).
/// With a known count the first clients beyond the batch wait for k completions, the k-th of them,
/// and each later one for clients - batch. Requests no more than the clients are a burst
/// (burst_wait_s), not this.
[[nodiscard]] double closed_loop_ttft_s(std::uint64_t clients, std::uint64_t batch, std::uint64_t requests, bool waves,
                                        double burst_ttft_s, double admitted_alone_s, double requests_per_s);

/// A burst: `requests` per replica queued at once. With equal output lengths (`waves`) they run in
/// waves of `batch` that each last `wave_s` (the last partial wave shorter, not counted here: its
/// requests wait for the full waves before it); with lengths that spread, a finished request's
/// slot goes to the next, the queue draining at `requests_per_s`. The mean over all requests
/// of the wait before admission; 0 when requests <= batch.
[[nodiscard]] double burst_wait_s(std::uint64_t requests, std::uint64_t batch, bool waves, double wave_s,
                                  double requests_per_s);

/// Open loop: requests arrive at random (Poisson) at `requests_per_s` per replica and each
/// prompt's prefill keeps the replica's prefill busy `prefill_s` (compute on weights the decode
/// steps already stream): the mean wait behind the prefills ahead, M/D/1's Pollaczek-Khinchine
/// rho x prefill_s / (2 (1 - rho)) with rho = requests_per_s x prefill_s. Infinite when rho >= 1
/// (the queue grows without end).
[[nodiscard]] double poisson_prefill_wait_s(double requests_per_s, double prefill_s);

}  // namespace gpuplan
