// What the registry's entries (op_host/kernel_registry.cpp) see of a plan's input, and their
// per-kernel tilings: each kernel chunks the destination, splits it over the cores (SplitItems, shared)
// and lays out its own per-core scratch.
#ifndef TRILINEAR3D_OP_HOST_KERNEL_TILING_H_
#define TRILINEAR3D_OP_HOST_KERNEL_TILING_H_

#include <cstdint>

#include "common/resample_math.h"
#include "op_host/resample_tiling.h"

namespace trilinear3d::tiling {

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t RoundUp64Bytes(int64_t elems, int64_t elemBytes) {
  return CeilDiv(elems * elemBytes, 64) * 64;
}

// The input with the sizes every kernel's check and tiling derive from it.
struct TilingContext {
  const TilingInput &input;
  math::AxisSpec axes[3];  // D, H, W with the real scales
  bool backward = true;
  RowLayout layout = RowLayout::kWInner;
  // Destination: gradInput (in-side sizes) backward, out (out-side sizes) forward.
  int64_t dstD = 0, dstH = 0, dstW = 0;
  int64_t srcW = 0;
  int64_t rowWidth = 1;     // elements per W position in a row: C (C inner) or 1
  int64_t srcRowElems = 0;  // elements of one source row
  int64_t accBytes = 0;     // the accumulation type's size
  int64_t srcElemBytes = 0;

  explicit TilingContext(const TilingInput &in);
};

// Sets the chunks (dChunk starts as all of D) and the item split of t for hChunk x wChunk chunks:
// enough items for the cores to balance (dynamic scheduling), splitting H first (its chunk
// boundaries cost the least re-reading), then D; and blockDim.
void SplitItems(const TilingContext &ctx, int64_t hChunk, int64_t wChunk, TilingData *t);

// The per-kernel tilings: chunks, SplitItems and the scratch fields; each returns the scratch bytes per
// core. t arrives with the shared fields set (axes, layout, planeCount, rowElems, streamStores, kernel).
int64_t TileBackwardStencil2x(const TilingContext &ctx, TilingData *t);
int64_t TileBackwardWidthFirst(const TilingContext &ctx, TilingData *t);
int64_t TileBackwardWidthLast(const TilingContext &ctx, TilingData *t);
int64_t TileForwardWidthFirst(const TilingContext &ctx, TilingData *t);
int64_t TileForwardWidthLast(const TilingContext &ctx, TilingData *t);
int64_t TileNearestBackward(const TilingContext &ctx, TilingData *t);
int64_t TileNearestForward(const TilingContext &ctx, TilingData *t);

}  // namespace trilinear3d::tiling

#endif  // TRILINEAR3D_OP_HOST_KERNEL_TILING_H_
