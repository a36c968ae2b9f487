// The two ops' definitions. Unlike the seed's NPU registration (bf16 / fp16 / fp32 AICore, double
// through AICPU), one CPU kernel covers all four dtypes.
#include "op_host/op_defs.h"

#include <algorithm>
#include <initializer_list>

namespace trilinear3d::op_host {
namespace {

const std::vector<aclDataType> kDataTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
const std::vector<aclFormat> kFormats = {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC};

// Both ops' attrs: output_size, then the op's own (the grad's input_size), then align_corners and
// the scales.
std::vector<AttrDef> Attrs(std::initializer_list<AttrDef> afterOutputSize) {
  std::vector<AttrDef> attrs = {{"output_size", AttrKind::kListInt, true, ""}};
  attrs.insert(attrs.end(), afterOutputSize);
  attrs.insert(attrs.end(), {{"align_corners", AttrKind::kBool, false, "false"},
                             {"scale_d", AttrKind::kFloat, false, "0.0"},
                             {"scale_h", AttrKind::kFloat, false, "0.0"},
                             {"scale_w", AttrKind::kFloat, false, "0.0"}});
  return attrs;
}

}  // namespace

const OpDef &UpsampleTrilinear3dGradDef() {
  static const OpDef def{"UpsampleTrilinear3dGrad",
                         {"grad_output"},
                         {"grad_input"},
                         Attrs({{"input_size", AttrKind::kListInt, true, ""}}),
                         kDataTypes,
                         kFormats};
  return def;
}

const OpDef &UpsampleTrilinear3dDef() {
  static const OpDef def{"UpsampleTrilinear3d", {"x"}, {"y"}, Attrs({}), kDataTypes, kFormats};
  return def;
}

const OpDef *FindOpDef(const std::string &type) {
  for (const OpDef *def : {&UpsampleTrilinear3dGradDef(), &UpsampleTrilinear3dDef()}) {
    if (def->type == type) return def;
  }
  return nullptr;
}

bool SupportsDataType(const OpDef &def, int32_t dataType) {
  return std::any_of(def.dataTypes.begin(), def.dataTypes.end(),
                     [dataType](aclDataType t) { return static_cast<int32_t>(t) == dataType; });
}

bool SupportsFormat(const OpDef &def, int32_t format) {
  return std::any_of(def.formats.begin(), def.formats.end(),
                     [format](aclFormat f) { return static_cast<int32_t>(f) == format; });
}

}  // namespace trilinear3d::op_host
