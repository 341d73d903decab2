// RequestBody: the object a create, update or patch sends, decoded for the
// resource its request addresses.
#ifndef DRALLOC_APISERVER_REQUEST_BODY_H_
#define DRALLOC_APISERVER_REQUEST_BODY_H_

#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "apiserver/api_error.h"
#include "apiserver/request_scope.h"

namespace dralloc::apiserver {

struct RequestBody {
  api::Object object;
  // fieldValidation=Warn: the unknown and duplicate fields, as upstream
  // words them in its Warning headers.
  std::vector<std::string> warnings;
};

// Decodes a request body for `scope` (JSON or YAML), honouring
// fieldValidation: a missing apiVersion or kind is taken from the URL, a
// different one is a 400, and so are unknown or duplicate fields under
// kStrict.
ApiOr<RequestBody> DecodeBody(const RequestScope& scope, std::string_view body,
                              FieldValidation validation);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_REQUEST_BODY_H_
