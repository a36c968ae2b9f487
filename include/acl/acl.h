/**
 * @file acl.h
 * Entry header of the ACL C API (CANN path). Includes the runtime and base types.
 */
#ifndef TRILINEAR3D_ACL_ACL_H_
#define TRILINEAR3D_ACL_ACL_H_

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Initialises the runtime. configPath may be null. A second call returns ACL_ERROR_REPEAT_INITIALIZE. */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
/** Waits for all streams' queued work, destroys the streams and ends the runtime. */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACL_ACL_H_
