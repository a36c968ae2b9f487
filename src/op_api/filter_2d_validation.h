// The validation the cubic group's 2-D operators share (aclnnUpsampleBicubic2d, aclnnUpsampleBilinear2dAA,
// aclnnUpsampleBicubic2dAA and their backwards; docs/spec.md §4): CANN's checks in CANN's order, each
// reporting a message that names the parameter and its values and returning the CANN code.
#ifndef TRILINEAR3D_OP_API_FILTER_2D_VALIDATION_H_
#define TRILINEAR3D_OP_API_FILTER_2D_VALIDATION_H_

#include <cstdint>

#include "op_host/op_defs.h"
#include "runtime/meta_objects.h"

namespace trilinear3d::op_api {

// The forward's checks after the null pointers: dtypes, formats (self's and out's the same), ranks,
// outputSize's size (2), C > 0, H and W > 0 (self and outputSize), out's shape, the scales against
// outputSize (a scale > 0 must give its output size: floor(in * scale), with CANN's tolerance), memory.
int32_t CheckFilter2dForward(const char *api, const op_host::OpDef &def, const aclTensor &self,
                             const aclIntArray &outputSize, double scalesH, double scalesW,
                             const aclTensor &out);

// The backward's checks after the null pointers: ranks, outputSize's (2) and inputSize's (4) sizes, H and W
// > 0, gradOut's and gradInput's shapes (inputSize in gradInput's format's order), gradOut's format and
// gradInput's the same, dtypes, memory. *inNchw: inputSize as (N, C, H, W).
int32_t CheckFilter2dBackward(const char *api, const op_host::OpDef &def, const aclTensor &gradOut,
                              const aclIntArray &outputSize, const aclIntArray &inputSize,
                              const aclTensor &gradInput);

// The antialiased operators' steps (each operator's file calls them in CANN's order).
// scalesH and scalesW are not negative.
int32_t CheckScalesNotNegative(const char *api, double scalesH, double scalesW);
// a's and b's formats are the same.
int32_t CheckSameFormat(const char *api, const char *aName, const aclTensor &a, const char *bName,
                        const aclTensor &b);
// a's and b's N and C (read by their formats) are the same.
int32_t CheckBatchAndChannels(const char *api, const char *aName, const aclTensor &a, const char *bName,
                              const aclTensor &b);
// N, C (of the input side), in H, W and out H, W are all > 0 (the antialiased operators take no empty
// tensor).
int32_t CheckAllSizesPositive(const char *api, const int64_t nchw[4], int64_t outH, int64_t outW);
// The forward's shrink limit: each axis's source step (1 / scale for a scale > 0, else in / out: an integer
// division where integerRatio, as CANN's aclnnUpsampleBilinear2dAA computes it) at most 50.
int32_t CheckShrinkLimit(const char *api, int64_t inH, int64_t inW, int64_t outH, int64_t outW,
                         double scalesH, double scalesW, bool integerRatio);
// The backward's growth limit: each axis's source step (1 / scale, else in / out) at least 1/50.
int32_t CheckGrowthLimit(const char *api, int64_t inH, int64_t inW, int64_t outH, int64_t outW,
                         double scalesH, double scalesW);

// The D, H, W scales the plan takes: each of scalesH, scalesW where it is > 0 (PyTorch's rule for the
// cubic and antialiased modes), else 0 (the sizes decide).
void Filter2dAxisScales(double scalesH, double scalesW, double axisScales[3]);

// The antialiased forwards: an axis of unchanged size is copied whatever its scale (PyTorch's forward skips
// it), so its scale is dropped. inHw / outHw: the input's and output's H and W.
void DropScalesOfKeptAxes(const int64_t inHw[2], const int64_t outHw[2], double axisScales[3]);

}  // namespace trilinear3d::op_api

#endif  // TRILINEAR3D_OP_API_FILTER_2D_VALIDATION_H_
