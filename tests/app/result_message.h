#pragma once

#include "app/common/result.h"

#include <QString>

namespace loadscope::testing {

// The error message of a failed Result, empty for a value: safe where a test
// macro evaluates its description whether or not the check fails.
template <typename T> QString failureOf(const app::Result<T>& result) {
    return result ? QString() : result.error().message;
}

} // namespace loadscope::testing
