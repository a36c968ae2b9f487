// The two ops' definitions. Unlike the seed's NPU registration (bf16 / fp16 / fp32 AICore, double
// through AICPU), one CPU kernel covers all four dtypes.
#include "op_host/upsample_trilinear3d_def.h"

#include <algorithm>

namespace trilinear3d::op_host {
namespace {

const std::vector<aclDataType> kDataTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
const std::vector<aclFormat> kFormats = {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC};

}  // namespace

const OpDef &UpsampleTrilinear3dGradDef() {
  static const OpDef def{"UpsampleTrilinear3dGrad",
                         {"grad_output"},
                         {"grad_input"},
                         {{"output_size", AttrKind::kListInt, true, ""},
                          {"input_size", AttrKind::kListInt, true, ""},
                          {"align_corners", AttrKind::kBool, false, "false"},
                          {"scale_d", AttrKind::kFloat, false, "0.0"},
                          {"scale_h", AttrKind::kFloat, false, "0.0"},
                          {"scale_w", AttrKind::kFloat, false, "0.0"}},
                         kDataTypes,
                         kFormats};
  return def;
}

const OpDef &UpsampleTrilinear3dDef() {
  static const OpDef def{"UpsampleTrilinear3d",
                         {"x"},
                         {"y"},
                         {{"output_size", AttrKind::kListInt, true, ""},
                          {"align_corners", AttrKind::kBool, false, "false"},
                          {"scale_d", AttrKind::kFloat, false, "0.0"},
                          {"scale_h", AttrKind::kFloat, false, "0.0"},
                          {"scale_w", AttrKind::kFloat, false, "0.0"}},
                         kDataTypes,
                         kFormats};
  return def;
}

const OpDef *FindOpDef(const std::string &type) {
  for (const OpDef *def : {&UpsampleTrilinear3dGradDef(), &UpsampleTrilinear3dDef()}) {
    if (def->type == type) return def;
  }
  return nullptr;
}

bool SupportsDataType(const OpDef &def, aclDataType dataType) {
  return std::find(def.dataTypes.begin(), def.dataTypes.end(), dataType) != def.dataTypes.end();
}

bool SupportsFormat(const OpDef &def, aclFormat format) {
  return std::find(def.formats.begin(), def.formats.end(), format) != def.formats.end();
}

}  // namespace trilinear3d::op_host
