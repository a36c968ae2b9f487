// The resize operators' definitions. Unlike the NPU registrations (bf16 / fp16 / fp32 AICore, double
// through AICPU or not at all), one CPU engine covers all four dtypes for every operator.
#include "op_host/op_defs.h"

#include <algorithm>
#include <initializer_list>

namespace trilinear3d::op_host {
namespace {

const std::vector<aclDataType> kDataTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
const std::vector<aclFormat> kFormats = {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC};
const std::vector<aclFormat> kFormats2d = {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC};
// CANN's antialiased operators take channels-first tensors only.
const std::vector<aclFormat> kFormatsNchw = {ACL_FORMAT_ND, ACL_FORMAT_NCHW};
// CANN's 1-D operators check no format: every 3-D tensor is read as NCL.
const std::vector<aclFormat> kFormats1d = {ACL_FORMAT_ND, ACL_FORMAT_NCL};

// The ops' attrs: output_size, then the op's own (the grad's input_size), then align_corners and
// the scales of the op's axes.
std::vector<AttrDef> Attrs(std::initializer_list<AttrDef> afterOutputSize,
                           std::initializer_list<const char *> scales = {"scale_d", "scale_h", "scale_w"}) {
  std::vector<AttrDef> attrs = {{"output_size", AttrKind::kListInt, true, ""}};
  attrs.insert(attrs.end(), afterOutputSize);
  attrs.push_back({"align_corners", AttrKind::kBool, false, "false"});
  for (const char *scale : scales) attrs.push_back({scale, AttrKind::kFloat, false, "0.0"});
  return attrs;
}

const AttrDef kInputSize{"input_size", AttrKind::kListInt, true, ""};

// The nearest ops' attrs: output_size, the op's own, then its scales (no align_corners).
std::vector<AttrDef> NearestAttrs(std::initializer_list<AttrDef> afterOutputSize,
                                  std::initializer_list<const char *> scales) {
  std::vector<AttrDef> attrs = {{"output_size", AttrKind::kListInt, true, ""}};
  attrs.insert(attrs.end(), afterOutputSize);
  for (const char *scale : scales) attrs.push_back({scale, AttrKind::kFloat, false, "0.0"});
  return attrs;
}

const std::vector<aclDataType> kNearestForwardTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE,
                                                       ACL_UINT8};

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

const OpDef &UpsampleBilinear2dGradDef() {
  static const OpDef def{"UpsampleBilinear2dGrad",
                         {"grad_output"},
                         {"y"},
                         Attrs({kInputSize}, {"scales_h", "scales_w"}),
                         kDataTypes,
                         kFormats2d};
  return def;
}

const OpDef &UpsampleBilinear2dDef() {
  static const OpDef def{"UpsampleBilinear2d", {"x"},     {"y"}, Attrs({}, {"scales_h", "scales_w"}),
                         kDataTypes,           kFormats2d};
  return def;
}

const OpDef &UpsampleLinear1dGradDef() {
  static const OpDef def{"UpsampleLinear1dGrad",          {"grad_output"}, {"y"},
                         Attrs({kInputSize}, {"scales"}), kDataTypes,      kFormats1d};
  return def;
}

const OpDef &UpsampleLinear1dDef() {
  static const OpDef def{"UpsampleLinear1d", {"x"}, {"y"}, Attrs({}, {"scales"}), kDataTypes, kFormats1d};
  return def;
}

const OpDef &UpsampleNearest1dDef() {
  static const OpDef def{"UpsampleNearest1d",  {"x"},     {"y"}, NearestAttrs({}, {"scales"}),
                         kNearestForwardTypes, kFormats1d};
  return def;
}

const OpDef &UpsampleNearest2dDef() {
  static const OpDef def{"UpsampleNearest2d",  {"x"},     {"y"}, NearestAttrs({}, {"scales_h", "scales_w"}),
                         kNearestForwardTypes, kFormats2d};
  return def;
}

const OpDef &UpsampleNearest3dDef() {
  static const OpDef def{
      "UpsampleNearest3d",  {"x"},   {"y"}, NearestAttrs({}, {"scale_d", "scale_h", "scale_w"}),
      kNearestForwardTypes, kFormats};
  return def;
}

const OpDef &UpsampleNearest1dGradDef() {
  static const OpDef def{"UpsampleNearest1dGrad",
                         {"grad_output"},
                         {"y"},
                         NearestAttrs({kInputSize}, {"scales"}),
                         kDataTypes,
                         kFormats1d};
  return def;
}

const OpDef &UpsampleNearest2dGradDef() {
  static const OpDef def{"UpsampleNearest2dGrad",
                         {"grad_output"},
                         {"y"},
                         NearestAttrs({kInputSize}, {"scales_h", "scales_w"}),
                         kDataTypes,
                         kFormats2d};
  return def;
}

const OpDef &UpsampleNearest3dGradDef() {
  static const OpDef def{"UpsampleNearest3dGrad",
                         {"grad_output"},
                         {"grad_input"},
                         NearestAttrs({kInputSize}, {"scale_d", "scale_h", "scale_w"}),
                         kDataTypes,
                         kFormats};
  return def;
}

const OpDef &ResizeDef() {
  static const OpDef def{
      "Resize",
      {"x"},
      {"y"},
      {{"scales", AttrKind::kListFloat, true, ""}, {"mode", AttrKind::kString, false, "nearest"}},
      {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE},
      {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}};
  return def;
}

const OpDef &UpsampleBicubic2dGradDef() {
  static const OpDef def{"UpsampleBicubic2dGrad",
                         {"grad_output"},
                         {"grad_input"},
                         Attrs({kInputSize}, {"scales_h", "scales_w"}),
                         kDataTypes,
                         kFormats2d};
  return def;
}

const OpDef &UpsampleBicubic2dDef() {
  static const OpDef def{"UpsampleBicubic2d", {"x"},     {"y"}, Attrs({}, {"scales_h", "scales_w"}),
                         kDataTypes,          kFormats2d};
  return def;
}

const OpDef &UpsampleBilinear2dAAGradDef() {
  static const OpDef def{"UpsampleBilinear2dAAGrad",
                         {"grad_output"},
                         {"grad_input"},
                         Attrs({kInputSize}, {"scales_h", "scales_w"}),
                         kDataTypes,
                         kFormatsNchw};
  return def;
}

const OpDef &UpsampleBilinear2dAADef() {
  static const OpDef def{
      "UpsampleBilinear2dAA", {"x"}, {"y"}, Attrs({}, {"scales_h", "scales_w"}), kDataTypes, kFormatsNchw};
  return def;
}

const OpDef &UpsampleBicubic2dAAGradDef() {
  static const OpDef def{"UpsampleBicubic2dAAGrad",
                         {"grad_output"},
                         {"grad_input"},
                         Attrs({kInputSize}, {"scales_h", "scales_w"}),
                         kDataTypes,
                         kFormatsNchw};
  return def;
}

const OpDef &UpsampleBicubic2dAADef() {
  static const OpDef def{"UpsampleBicubic2dAA", {"x"}, {"y"}, Attrs({}, {"scales_h", "scales_w"}), kDataTypes,
                         kFormatsNchw};
  return def;
}

const OpDef *FindOpDef(const std::string &type) {
  for (const OpDef *def :
       {&UpsampleTrilinear3dGradDef(), &UpsampleTrilinear3dDef(), &UpsampleBilinear2dGradDef(),
        &UpsampleBilinear2dDef(), &UpsampleLinear1dGradDef(), &UpsampleLinear1dDef(), &UpsampleNearest1dDef(),
        &UpsampleNearest2dDef(), &UpsampleNearest3dDef(), &UpsampleNearest1dGradDef(),
        &UpsampleNearest2dGradDef(), &UpsampleNearest3dGradDef(), &ResizeDef(), &UpsampleBicubic2dGradDef(),
        &UpsampleBicubic2dDef(), &UpsampleBilinear2dAAGradDef(), &UpsampleBilinear2dAADef(),
        &UpsampleBicubic2dAAGradDef(), &UpsampleBicubic2dAADef()}) {
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
