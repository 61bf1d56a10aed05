// Parallel regions that cost nothing where one thread does the work. libgomp starts even a one-thread team (a region
// whose if clause is false, or num_threads(1)) and ends its barriers and the team with futex system calls:
// microseconds each in a virtual machine, several per small call. Work that fits one thread, called outside every
// parallel region, runs on the calling thread in no team: the worksharing constructs of its body (orphaned there)
// bind to no team and run all their iterations, as on a team of one. Inside a caller's region, even of one thread,
// they would bind to the caller's team, so such calls keep a team of their own.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

namespace bf16x::util {

// Whether work for `threads` threads needs a team of its own: else run its body on the calling thread. Inside a
// caller's parallel region always, even where that region has one thread: the caller may be inside a worksharing
// loop of its own (an item of bf16x's batch, a program's parallel DO), and a worksharing construct must not bind to
// the team of one it is closely nested in (libgomp then skips or repeats the outer loop's iterations).
inline bool team_needed(int threads) { return threads > 1 || omp_get_level() > 0; }

// A copy or a scan is worth a team above this many elements.
inline constexpr std::int64_t kTeamElements = std::int64_t(1) << 16;

// body(i) for the independent iterations i in [0, count), `work` elements in all: on the call's threads (at most one
// per iteration) where the work is above `team_above`, else on the calling thread alone. Each iteration's operations
// are the same whichever thread runs it, so the split changes no bit.
template <typename Body>
void for_each_index(std::int64_t count, std::int64_t work, std::int64_t team_above, Body body) {
  const int threads = int(std::min<std::int64_t>(omp_get_max_threads(), count));
  if (work <= team_above || threads <= 1) {
    for (std::int64_t i = 0; i < count; ++i) body(i);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < count; ++i) body(i);
}
template <typename Body>
void for_each_index(std::int64_t count, std::int64_t work, Body body) {
  for_each_index(count, work, kTeamElements, body);
}

// for (i < count) f(i) in a share of the work (a body of on_team): a worksharing loop where the caller runs in a
// team (dynamic: chunks of `chunk`, else static; nowait: no barrier at its end), a plain loop where it runs in none,
// where an orphaned worksharing loop would still call into the OpenMP runtime (about 2k instructions a dynamic loop
// on one thread). Either way every iteration runs once, so the split changes no bit.
enum class Schedule { static_, dynamic, dynamic_nowait };
template <typename F>
void share_loop(std::int64_t count, Schedule s, int chunk, F&& f) {
  if (omp_get_level() == 0) {  // on_team ran the body in no team
    for (std::int64_t i = 0; i < count; ++i) f(i);
  } else if (s == Schedule::dynamic) {
#pragma omp for schedule(dynamic, chunk)
    for (std::int64_t i = 0; i < count; ++i) f(i);
  } else if (s == Schedule::dynamic_nowait) {
#pragma omp for schedule(dynamic, chunk) nowait
    for (std::int64_t i = 0; i < count; ++i) f(i);
  } else {
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) f(i);
  }
}

// body(sums...) by every thread of a team of `threads` where one is needed (team_needed), else once on the calling
// thread, whose worksharing constructs are then orphaned (no team). In a team each thread adds into sums of its own,
// added into the caller's after its share: counts, whose sum no order changes, or flags (a bool: any).
template <typename Body, typename... Sums>
void on_team(int threads, Body&& body, Sums&... sums) {
  if (!team_needed(threads)) {
    body(sums...);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    std::tuple<Sums...> mine{};
    std::apply(body, mine);
    const auto add = [](auto& to, const auto& from) {
      if constexpr (std::is_same_v<std::decay_t<decltype(to)>, bool>)
        to = to || from;
      else
        to += from;
    };
#pragma omp critical(bf16x_team_sums)
    std::apply([&](const auto&... m) { (add(sums, m), ...); }, mine);
  }
}

}  // namespace bf16x::util
