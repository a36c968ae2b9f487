// Op definitions (the seed's upsample_trilinear3d_backward_def.cpp, for each resize operator): inputs,
// outputs, attrs with their defaults, dtypes and formats, as a small registry the op_api consults.
#ifndef TRILINEAR3D_OP_HOST_OP_DEFS_H_
#define TRILINEAR3D_OP_HOST_OP_DEFS_H_

#include <string>
#include <vector>

#include "acl/acl_base.h"

namespace trilinear3d::op_host {

enum class AttrKind { kListInt, kBool, kFloat, kListFloat, kString };

struct AttrDef {
  std::string name;
  AttrKind kind;
  bool required;
  std::string defaultValue;  // as text; empty for required attrs and empty lists
};

struct OpDef {
  std::string type;  // the graph op type (CANN: UpsampleTrilinear3dGrad / UpsampleTrilinear3d)
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<AttrDef> attrs;
  std::vector<aclDataType> dataTypes;  // supported for every input and output (all the same)
  std::vector<aclFormat> formats;
};

const OpDef &UpsampleTrilinear3dGradDef();
const OpDef &UpsampleTrilinear3dDef();
// The 2-D ops (aclnnUpsampleBilinear2d; the grad serves V1 and V2 of its backward) and the 1-D ones
// (aclnnUpsampleLinear1d and its backward, whose formats are read as NCL and never refused).
const OpDef &UpsampleBilinear2dGradDef();
const OpDef &UpsampleBilinear2dDef();
const OpDef &UpsampleLinear1dGradDef();
const OpDef &UpsampleLinear1dDef();
// The nearest group (docs/spec.md §3): every float dtype for each direction, and uint8 for the forwards
// (a copy). The 1-D, 2-D and 3-D defs serve the legacy and the exact rule alike.
const OpDef &UpsampleNearest1dDef();
const OpDef &UpsampleNearest2dDef();
const OpDef &UpsampleNearest3dDef();
const OpDef &UpsampleNearest1dGradDef();
const OpDef &UpsampleNearest2dGradDef();
const OpDef &UpsampleNearest3dGradDef();
// aclnnResize: NCHW float tensors, mode "nearest" or "bilinear".
const OpDef &ResizeDef();
// The cubic group's 2-D ops (aclnnUpsampleBicubic2d, aclnnUpsampleBilinear2dAA, aclnnUpsampleBicubic2dAA)
// and their grads.
const OpDef &UpsampleBicubic2dGradDef();
const OpDef &UpsampleBicubic2dDef();
const OpDef &UpsampleBilinear2dAAGradDef();
const OpDef &UpsampleBilinear2dAADef();
const OpDef &UpsampleBicubic2dAAGradDef();
const OpDef &UpsampleBicubic2dAADef();
// The registered op of that type, or null.
const OpDef *FindOpDef(const std::string &type);

// Raw values as a caller passed them (see aclTensor in runtime/meta_objects.h).
bool SupportsDataType(const OpDef &def, int32_t dataType);
bool SupportsFormat(const OpDef &def, int32_t format);

}  // namespace trilinear3d::op_host

#endif  // TRILINEAR3D_OP_HOST_OP_DEFS_H_
