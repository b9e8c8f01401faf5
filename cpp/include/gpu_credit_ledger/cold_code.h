// Code that the package calls rarely (previews, the grant lifecycle, compaction, the pending
// queue's own calls, reallocations, result encodings) is compiled for size in the
// WebAssembly module: every function defined between GCL_COLD_CODE_BEGIN and
// GCL_COLD_CODE_END gets clang's `minsize` attribute, which link-time optimization keeps
// per function while the engine's hot paths stay at -O3. Not a whole unit at -Oz: an
// inline function from a header that such a unit instantiates may be the copy the link
// keeps for the hot units too. Native builds (GCC, the tests, the fuzzer) are unchanged.
#ifndef GPU_CREDIT_LEDGER_COLD_CODE_H_
#define GPU_CREDIT_LEDGER_COLD_CODE_H_

#if defined(__EMSCRIPTEN__) && defined(__clang__)
#define GCL_COLD_CODE_BEGIN \
  _Pragma("clang attribute push(__attribute__((minsize)), apply_to = function)")
#define GCL_COLD_CODE_END _Pragma("clang attribute pop")
#else
#define GCL_COLD_CODE_BEGIN
#define GCL_COLD_CODE_END
#endif

// A small function that must inline even into code compiled for size: the replay's step
// and its live grants (src/replay_check.h), whose state then stays in registers.
#define GCL_ALWAYS_INLINE inline __attribute__((always_inline))

#endif  // GPU_CREDIT_LEDGER_COLD_CODE_H_
