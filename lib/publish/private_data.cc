// private_data.cc - see private_data.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "private_data.h"

namespace fairway {

bool publish_user_samples(const PrivateData& hidden, bool publish_users) {
  return publish_users || !(hidden.usage || hidden.users);
}

std::optional<std::string> private_data_line(const PrivateData& hidden, bool publish_users,
                                             bool metrics_on) {
  if (!metrics_on || !(hidden.usage || hidden.users)) return std::nullopt;
  const std::string what = hidden.usage && hidden.users ? "PrivateData=usage,users"
                           : hidden.usage               ? "PrivateData=usage"
                                                        : "PrivateData=users";
  if (publish_users)
    return what +
           ": fairway.prom still has a sample per user (fairway_publish_users), "
           "readable by whoever can read the file or scrape it";
  return what +
         ": fairway.prom has the accounts' samples only, none that names a user "
         "(fairway_publish_users publishes them)";
}

}  // namespace fairway
