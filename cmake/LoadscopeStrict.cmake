# The one place for strictness: every project target links loadscope_strict.
add_library(loadscope_strict INTERFACE)
target_compile_options(loadscope_strict INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough
  $<$<BOOL:${LOADSCOPE_WERROR}>:-Werror>
  # GCC 12 reports coroutine frames and std::optional members as maybe
  # uninitialised at -O2 and above where they are not: kept visible, not fatal.
  $<$<CXX_COMPILER_ID:GNU>:-Wno-error=maybe-uninitialized>)
target_compile_definitions(loadscope_strict INTERFACE
  QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII QT_NO_CAST_FROM_BYTEARRAY
  QT_NO_URL_CAST_FROM_STRING QT_NO_NARROWING_CONVERSIONS_IN_CONNECT
  QT_NO_FOREACH QT_NO_KEYWORDS QT_USE_QSTRINGBUILDER
  QT_DISABLE_DEPRECATED_BEFORE=0x060400)
