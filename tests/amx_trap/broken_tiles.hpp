// Tile instructions used the wrong way, for the trap's own tests (compiled with the AMX flags; run only under the
// trap, never on hardware).
#pragma once

namespace bf16x::test::broken {

void configure_this_thread();       // LDTILECFG of the kernels' palette on the calling thread
void tilezero_without_ldtilecfg();  // TILEZERO tmm4 with no LDTILECFG of its own

}  // namespace bf16x::test::broken
