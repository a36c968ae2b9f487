// "[a,b,c]": how messages print a shape or a list of sizes or scales.
#ifndef TRILINEAR3D_COMMON_LIST_STRING_H_
#define TRILINEAR3D_COMMON_LIST_STRING_H_

#include <sstream>
#include <string>
#include <vector>

namespace trilinear3d {

template <typename T>
std::string ListString(const std::vector<T> &values) {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < values.size(); ++i) s << (i ? "," : "") << values[i];
  s << ']';
  return s.str();
}

}  // namespace trilinear3d

#endif  // TRILINEAR3D_COMMON_LIST_STRING_H_
