// RequestInfo: what a request addresses, read from its method, path and
// query alone, as upstream's RequestInfoFactory reads it: the attributes
// authorization decides on and the audit log records, before any routing.
#ifndef DRALLOC_APISERVER_REQUEST_INFO_H_
#define DRALLOC_APISERVER_REQUEST_INFO_H_

#include "apiserver/http_server.h"
#include "auth/request_attributes.h"

namespace dralloc::apiserver {

// The attributes of `request` for `user`: a resource request for
// /api/<v>/... and /apis/<g>/<v>/... (verb get/list/watch/create/update/
// patch/delete/deletecollection, namespace, resource, name, subresource,
// and the field and label selectors' exact-match terms), a non-resource
// request otherwise (verb = the lower-case method).
auth::RequestAttributes RequestAttributesOf(const HttpRequest& request,
                                            auth::UserInfo user);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_REQUEST_INFO_H_
